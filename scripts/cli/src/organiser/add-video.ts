import { Config } from '@em/core';
import { Orm, SqlEventsRepository, SqlVideosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { VideosService } from '@em/subgraph-media';
import { statSync } from 'node:fs';
import path from 'node:path';
import { progress } from './progress';

/**
 * `add-video`: a local video file into an event (stored in S3, then indexed by the ml-worker, which
 * must be running), waiting with the indexing progress unless `--no-wait`.
 */
export async function addVideo(orm: Orm, cfg: Config, flags: Record<string, string>): Promise<void> {
  const eventId = Number(flags.event);
  const file = flags.file;
  if (!Number.isSafeInteger(eventId) || eventId < 1) throw new Error('--event must be a positive integer');
  if (!file || !statSync(file, { throwIfNoEntry: false })?.isFile()) throw new Error('--file must be a video file');
  const event = await new SqlEventsRepository(orm).findById(eventId);
  if (!event) throw new Error(`no event ${eventId}`);
  const jobs = new JobQueues(cfg.REDIS_URL);
  try {
    const videos = new SqlVideosRepository(orm);
    const video = await new VideosService(new SqlEventsRepository(orm), videos, new ObjectStore(cfg), jobs).addToEvent(
      event,
      file,
      path.basename(file),
      flags['source-key'] || null,
    );
    console.log(`video ${video.id} (source key ${video.sourceKey}) stored; indexing by the ml-worker`);
    if (flags['no-wait']) return;
    for (;;) {
      const [row] = await videos.findByIds([video.id]);
      progress('index  ', Math.round(row.indexProgress * 100), 100, row.status);
      if (row.status === 'indexed' || row.status === 'failed') {
        if (process.stdout.isTTY) process.stdout.write('\n');
        console.log(
          row.status === 'indexed' ? `indexed: ${row.durationSeconds?.toFixed(1)} s of video` : `failed: ${row.error}`,
        );
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await jobs.close();
  }
}
