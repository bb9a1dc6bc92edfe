import { photoStatusChannel, photoStatusPublisher } from './photos/photo-status';
import { connectRedis } from './redis';
import { startRedis } from './test-support/redis-server';
import { clipStatusChannel, publishClipStatus } from './video/clip-status';
import { videoStatusChannel, videoStatusPublisher } from './video/video-status';

describe('status announcements on Redis pub/sub', () => {
  let redis: { url: string; stop: () => void };
  let publisher: ReturnType<typeof connectRedis>;
  let subscriber: ReturnType<typeof connectRedis>;

  beforeAll(async () => {
    redis = await startRedis();
    publisher = connectRedis(redis.url);
    subscriber = connectRedis(redis.url);
  });
  afterAll(() => {
    publisher.disconnect();
    subscriber.disconnect();
    redis.stop();
  });

  it('each transition reaches its own channel with its fields and the time it was announced', async () => {
    const received: Array<{ channel: string; message: Record<string, unknown> }> = [];
    subscriber.on('message', (channel: string, message: string) =>
      received.push({ channel, message: JSON.parse(message) as Record<string, unknown> }),
    );
    await subscriber.subscribe(photoStatusChannel(3), videoStatusChannel(3), clipStatusChannel('req-1'));
    const before = Date.now();

    await photoStatusPublisher(publisher)({ eventId: 3, photoId: 'p1', status: 'failed', reason: 'not a JPEG' });
    await videoStatusPublisher(publisher)({
      eventId: 3,
      videoId: 'v1',
      status: 'indexing',
      progress: 0.5,
      error: null,
    });
    await publishClipStatus(publisher, { requestId: 'req-1', eventId: 3, status: 'completed', error: null });
    // Another event's transition is not on this event's channel.
    await photoStatusPublisher(publisher)({ eventId: 4, photoId: 'p2', status: 'queued', reason: null });
    while (received.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(received.map((r) => r.channel)).toEqual(['photo-status:3', 'video-status:3', 'clip-status:req-1']);
    expect(received[0].message).toMatchObject({ photoId: 'p1', status: 'failed', reason: 'not a JPEG' });
    expect(received[1].message).toMatchObject({ videoId: 'v1', status: 'indexing', progress: 0.5 });
    expect(received[2].message).toMatchObject({ requestId: 'req-1', status: 'completed' });
    for (const { message } of received) expect(Date.parse(String(message.at))).toBeGreaterThanOrEqual(before - 1000);
  });

  it('a Redis that cannot take the message does not fail the job announcing it', async () => {
    const down = connectRedis('redis://127.0.0.1:1', { failFast: true });
    down.on('error', () => undefined);
    await expect(
      photoStatusPublisher(down)({ eventId: 3, photoId: 'p1', status: 'processed', reason: null }),
    ).resolves.toBeUndefined();
    down.disconnect();
  });
});
