import { AppError } from '@em/core';
import { Job, UnrecoverableError } from 'bullmq';
import { clientReason, failedForGood } from './workers';

const jobAfter = (attemptsMade: number, attempts?: number) => ({ attemptsMade, opts: { attempts } }) as unknown as Job;

describe('final failure of a job', () => {
  it('is the last attempt, or an UnrecoverableError at any attempt', () => {
    expect(failedForGood(jobAfter(1, 5), new Error('boom'))).toBe(false);
    expect(failedForGood(jobAfter(5, 5), new Error('boom'))).toBe(true);
    expect(failedForGood(jobAfter(1, 5), new UnrecoverableError('not a photo'))).toBe(true);
    expect(failedForGood(jobAfter(1), new Error('boom'))).toBe(true);
  });

  it('tells the client our own reasons and nothing of internal errors', () => {
    expect(clientReason(new UnrecoverableError('The file is not an image'), 'fallback')).toBe(
      'The file is not an image',
    );
    expect(clientReason(new AppError('BAD_REQUEST', 'The video has no frames'), 'fallback')).toBe(
      'The video has no frames',
    );
    expect(clientReason(new Error('ECONNREFUSED 10.0.0.3:5432'), 'The photo could not be processed')).toBe(
      'The photo could not be processed',
    );
  });
});
