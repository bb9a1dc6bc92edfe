import { jobIdOf, jobOptions, JOBS, QUEUE_NAMES, queuesOf, workerOptions } from './registry';

describe('job registry', () => {
  it('keeps the queue and job names already in Redis (a rename would orphan queued jobs)', () => {
    expect(Object.fromEntries(QUEUE_NAMES.map((q) => [q, [JOBS[q].queue, JOBS[q].job]]))).toEqual({
      photos: ['photo-processing', 'process-photo'],
      selfies: ['selfie-embedding', 'embed-selfie'],
      videos: ['video-indexing', 'index-video'],
      clips: ['video-clipping', 'cut-clips'],
      clipRetention: ['clip-retention', 'sweep-expired-clips'],
      eventDeletion: ['event-deletion', 'delete-event'],
      invitationMail: ['invitation-mail', 'send-invitation'],
    });
  });

  it('gives every queue its own BullMQ queue and job name', () => {
    expect(new Set(QUEUE_NAMES.map((q) => JOBS[q].queue)).size).toBe(QUEUE_NAMES.length);
    expect(new Set(QUEUE_NAMES.map((q) => JOBS[q].job)).size).toBe(QUEUE_NAMES.length);
  });

  it.each(QUEUE_NAMES)('declares attempts, retention, concurrency and a lock duration for %s', (queue) => {
    const options = jobOptions(queue);
    expect(options.attempts).toBeGreaterThanOrEqual(1);
    expect(options.removeOnComplete).toBeDefined();
    expect(options.removeOnFail).toBeDefined();
    expect(workerOptions(queue).concurrency).toBeGreaterThanOrEqual(1);
    expect(workerOptions(queue).lockDuration).toBeGreaterThanOrEqual(30_000);
  });

  it('derives stable job ids from the thing processed, whoever queued it', () => {
    expect(jobIdOf('photos', { photoId: 'p1' })).toBe('photo-p1');
    expect(jobIdOf('photos', { photoId: 'p1', httpRequestId: 'r1' })).toBe(
      jobIdOf('photos', { photoId: 'p1', httpRequestId: 'r2' }),
    );
    expect(jobIdOf('videos', { videoId: 'v1' })).toBe('video-v1');
    expect(jobIdOf('clips', { eventId: 7, requestId: 'req', generation: 2 })).toBe('clips-7-req-2');
    expect(jobIdOf('clips', { eventId: 7, requestId: 'req', generation: 3 })).not.toBe(
      jobIdOf('clips', { eventId: 7, requestId: 'req', generation: 2 }),
    );
    expect(jobIdOf('eventDeletion', { eventId: 7, orgId: 1 })).toBe('event-7');
  });

  it('gives selfies and the repeating sweep no derived id: every enqueue is a new job', () => {
    expect(jobIdOf('selfies', { imageBase64: 'x' })).toBeUndefined();
    expect(jobOptions('selfies', { imageBase64: 'x' }).jobId).toBeUndefined();
    expect(jobIdOf('clipRetention', {})).toBeUndefined();
  });

  it('adds jobs with the retry policy each pipeline had', () => {
    const retried = {
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: { age: 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    };
    expect(jobOptions('photos', { photoId: 'p1' })).toEqual({ attempts: 5, ...retried, jobId: 'photo-p1' });
    expect(jobOptions('videos', { videoId: 'v1' })).toEqual({ attempts: 3, ...retried, jobId: 'video-v1' });
    expect(jobOptions('clips', { eventId: 1, requestId: 'r', generation: 1 })).toEqual({
      attempts: 3,
      ...retried,
      jobId: 'clips-1-r-1',
    });
    expect(jobOptions('selfies')).toEqual({ attempts: 1, removeOnComplete: { age: 120 }, removeOnFail: { age: 120 } });
  });

  it('runs the long video jobs one at a time under a long lock, the rest under BullMQ defaults', () => {
    expect(workerOptions('videos')).toEqual({ concurrency: 1, lockDuration: 120_000 });
    expect(workerOptions('clips')).toEqual({ concurrency: 1, lockDuration: 120_000 });
    expect(workerOptions('photos')).toEqual({ concurrency: 2, lockDuration: 30_000 });
    expect(workerOptions('selfies')).toEqual({ concurrency: 4, lockDuration: 30_000 });
  });

  it('schedules only the clip retention sweep, every CLIP_RETENTION_SWEEP_SECONDS', () => {
    expect(QUEUE_NAMES.filter((q) => JOBS[q].repeat)).toEqual(['clipRetention']);
    expect(JOBS.clipRetention.repeat!.schedulerId).toBe('clip-retention-sweep');
    expect(JOBS.clipRetention.repeat!.everyMs({ CLIP_RETENTION_SWEEP_SECONDS: 300 })).toBe(300_000);
  });

  it('sends invitation mails from the identity provider, everything else from the ml-worker', () => {
    expect(queuesOf('identity')).toEqual(['invitationMail']);
    expect(queuesOf('ml-worker')).toEqual(QUEUE_NAMES.filter((q) => q !== 'invitationMail'));
  });

  it('mails one invitation per organisation and address within ten minutes, however often it is asked', () => {
    const invite = { orgId: 3, organisationName: 'Run', email: 'a@example.com', role: 'user' };
    expect(jobOptions('invitationMail', invite).deduplication).toEqual({
      id: 'invitation-3-a@example.com',
      ttl: 600_000,
    });
    expect(jobOptions('invitationMail', { ...invite, orgId: 4 }).deduplication?.id).not.toBe(
      'invitation-3-a@example.com',
    );
    expect(jobOptions('photos', { photoId: 'p1' }).deduplication).toBeUndefined();
  });
});
