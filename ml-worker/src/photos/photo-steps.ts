import { Histogram, Registry } from 'prom-client';

/** The steps of the photo job, in the order they run, each timed on its own. */
export const PHOTO_STEPS = ['fetch', 'decode', 'previews', 'store', 'bibs', 'faces', 'save'] as const;
export type PhotoStep = (typeof PHOTO_STEPS)[number];

/** Where the photo job reports how long each step took (wall seconds). */
export interface PhotoStepTimes {
  observe(step: PhotoStep, seconds: number): void;
}

/** Nothing recorded (tests, the bench's in-process path). */
export const UNTIMED_STEPS: PhotoStepTimes = { observe: () => undefined };

/**
 * `em_photo_step_seconds{step}` on the ml-worker's /metrics: wall time of each step of the photo
 * job, so an operator (and `npm run bench -- ingest`) sees where a photo's time goes.
 */
export function photoStepHistogram(registry: Registry): PhotoStepTimes {
  const histogram = new Histogram({
    name: 'em_photo_step_seconds',
    help: 'Wall time of each step of the photo job (fetch, decode, previews, store, bibs, faces, save)',
    labelNames: ['step'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  });
  return { observe: (step, seconds) => histogram.observe({ step }, seconds) };
}

/** Runs `work` as `step`: its wall time is observed whether it succeeds or throws. */
export async function timedStep<T>(times: PhotoStepTimes, step: PhotoStep, work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  try {
    return await work();
  } finally {
    times.observe(step, Number(process.hrtime.bigint() - started) / 1e9);
  }
}
