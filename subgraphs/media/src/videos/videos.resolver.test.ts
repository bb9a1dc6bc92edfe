import {
  apiKeyPrincipal,
  InMemoryEventsRepository,
  InMemoryObjectStore,
  InMemoryVideosRepository,
  RecordingJobProducer,
} from '@em/core/testing';
import type { FileUpload, SubgraphContext } from '@em/subgraph-kit';
import { Readable } from 'node:stream';
import { VideosResolver } from './videos.resolver';
import { VideosService } from './videos.service';

function resolverWithEvent() {
  const events = new InMemoryEventsRepository();
  events.add({ id: 5, orgId: 1, videoSearch: true });
  const store = new InMemoryObjectStore();
  return new VideosResolver(
    new VideosService(events, new InMemoryVideosRepository(events), store.asStore, new RecordingJobProducer()),
  );
}

/** An upload that records whether anything opened it. */
function watchedUpload() {
  const opened = { value: false };
  const file = {
    filename: 'big.mp4',
    mimetype: 'video/mp4',
    encoding: '7bit',
    fieldName: 'file',
    createReadStream: () => {
      opened.value = true;
      return Readable.from([Buffer.alloc(1024)]);
    },
  } as unknown as FileUpload;
  return { opened, upload: Promise.resolve(file) };
}

describe('VideosResolver.addEventVideo', () => {
  it("checks the caller before it opens the file: another organisation's key is FORBIDDEN, nothing read or written", async () => {
    const { opened, upload } = watchedUpload();
    const ctx = { principal: apiKeyPrincipal(2) } as SubgraphContext;
    await expect(resolverWithEvent().addEventVideo(ctx, { orgId: 1, eventId: 5 }, upload)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(opened.value).toBe(false);
  });

  it('reads the file once the caller may add videos (a file that is not a video is then a 400)', async () => {
    const { opened, upload } = watchedUpload();
    const ctx = { principal: apiKeyPrincipal(1) } as SubgraphContext;
    await expect(resolverWithEvent().addEventVideo(ctx, { orgId: 1, eventId: 5 }, upload)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(opened.value).toBe(true);
  });
});
