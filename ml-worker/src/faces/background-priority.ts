import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the CPU priority of the calling thread by `steps` nice levels: on Linux a nice value
 * belongs to one thread, and threads started from it afterwards inherit it. The ml-worker calls it
 * on its main thread once its selfie threads exist, so that photo and video work (the main thread's
 * face models, then the OCR and video threads it starts) gives way to selfies when the cores are
 * busy. Lowering needs no privilege (raising would). Answers the new nice value, or null when the
 * platform refused (the work then runs at the same priority as before).
 */
export function lowerThreadPriority(steps: number): number | null {
  if (steps <= 0) return null;
  try {
    const nice = Math.min(19, getPriority(0) + steps);
    setPriority(0, nice);
    return getPriority(0);
  } catch {
    return null;
  }
}
