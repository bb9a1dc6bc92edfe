import { parentPort, workerData } from 'node:worker_threads';
import { BibReader } from './bib-reader';
import type { OcrThreadData, ThreadPhoto } from './bib-reader-pool';

/** One OCR thread of BibReaderPool: its own models, one photo at a time, text boxes and the people found back to the pool. */
const { options, graphs } = workerData as OcrThreadData;
const reader = new BibReader(options, graphs);
const port = parentPort!;
// Built here, the graphs go to the pool first, for the threads it starts next.
if (!graphs)
  reader.ocrGraphs().then(
    (built) => port.postMessage({ graphs: built }),
    () => undefined,
  );
reader.load().then(
  () => port.postMessage({ ready: true }),
  (err: Error) => port.postMessage({ ready: false, error: err.message }),
);
const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
port.on('message', ({ id, ...photo }: { id: number } & ThreadPhoto) => {
  const found =
    'pixels' in photo
      ? reader.pixelCandidates({ ...photo.pixels, data: buffer(photo.pixels.data) })
      : reader.candidates(buffer(photo.image));
  found.then(
    ({ boxes, people }) => port.postMessage({ id, boxes, people }),
    (err: Error) => port.postMessage({ id, error: err.message }),
  );
});
