import { DependencyCheck, serveOperatorPort, ServiceMetrics } from '@em/core';
import { Queue, Worker } from 'bullmq';
import { Gauge, Histogram } from 'prom-client';
import http from 'node:http';

/**
 * The ml-worker's only HTTP: /metrics (queue depths read at scrape time, job durations and
 * outcomes by queue, process metrics) and /health/live, /health/ready for the orchestrator.
 */
export function serveOperatorEndpoints(opts: {
  port: number;
  host: string;
  metrics: ServiceMetrics;
  checks: DependencyCheck[];
  queues: Queue[];
}): {
  server: http.Server;
  /** Job durations of these workers go to /metrics from now on (workers start once the models are loaded). */
  observe(workers: Worker[]): void;
} {
  const { metrics } = opts;
  const jobSeconds = new Histogram({
    name: 'em_job_duration_seconds',
    help: 'Job run time by queue and outcome (completed, failed)',
    labelNames: ['queue', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
    registers: [metrics.registry],
  });
  new Gauge({
    name: 'em_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed)',
    labelNames: ['queue', 'state'],
    registers: [metrics.registry],
    async collect() {
      for (const queue of opts.queues) {
        const counts = await queue
          .getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized')
          .catch(() => null);
        if (counts) for (const [state, n] of Object.entries(counts)) this.set({ queue: queue.name, state }, n);
      }
    },
  });
  const observe = (workers: Worker[]) => {
    for (const worker of workers) {
      const record = (outcome: string) => (job: { processedOn?: number; finishedOn?: number } | undefined) => {
        if (job?.processedOn && job.finishedOn)
          jobSeconds.observe({ queue: worker.name, outcome }, (job.finishedOn - job.processedOn) / 1000);
      };
      worker.on('completed', record('completed'));
      worker.on('failed', record('failed'));
    }
  };
  return { server: serveOperatorPort(opts), observe };
}
