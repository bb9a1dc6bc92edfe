import { AppError, PhotoStatusEvent, Principal, photoStatusChannel } from '@em/core';
import { eventFeedStream } from './event-feed-subscription';

const principal = { kind: 'api_key', orgId: 1, apiKeyId: 1, scopes: [] } as unknown as Principal;
const event = (photoId: string, status: PhotoStatusEvent['status']): PhotoStatusEvent => ({
  eventId: 5,
  photoId,
  status,
  reason: status === 'failed' ? 'corrupt or truncated image' : null,
  at: new Date().toISOString(),
});

function feed() {
  const listeners = new Map<string, (message: unknown) => void>();
  return {
    listeners,
    listen: async (channel: string, listener: (message: unknown) => void) => {
      listeners.set(channel, listener);
      return () => listeners.delete(channel);
    },
  };
}

describe('an event feed subscription (photoStatus, videoStatus)', () => {
  it('sends nothing to a caller the guard refuses, and stops listening', async () => {
    const f = feed();
    const stream = eventFeedStream(
      'photoStatus',
      photoStatusChannel,
      async () => {
        throw new AppError('FORBIDDEN', 'Not your event');
      },
      f,
    )({ orgId: 2, eventId: 5 }, { principal });
    await expect(stream.next()).rejects.toMatchObject({ message: 'Not your event', extensions: { code: 'FORBIDDEN' } });
    expect(f.listeners.size).toBe(0);
  });

  it("passes on the event's channel in order, announced during the guard too", async () => {
    const f = feed();
    let allow!: () => void;
    const guard = new Promise<void>((resolve) => (allow = resolve));
    const stream = eventFeedStream(
      'photoStatus',
      photoStatusChannel,
      () => guard,
      f,
    )({ orgId: 1, eventId: 5 }, { principal });
    const first = stream.next();
    await new Promise((r) => setImmediate(r));
    expect([...f.listeners.keys()]).toEqual(['photo-status:5']);
    f.listeners.get('photo-status:5')!(event('a', 'processing'));
    allow();
    expect((await first).value).toMatchObject({ photoStatus: { photoId: 'a', status: 'processing' } });
    f.listeners.get('photo-status:5')!(event('a', 'failed'));
    expect((await stream.next()).value).toMatchObject({
      photoStatus: { photoId: 'a', status: 'failed', reason: 'corrupt or truncated image' },
    });
    await stream.return(undefined as never);
    expect(f.listeners.size).toBe(0);
  });
});
