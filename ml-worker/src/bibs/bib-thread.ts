import { parentPort, workerData } from 'node:worker_threads';
import { BibReader } from './bib-reader';

/** One OCR thread of BibReaderPool: its own models, one photo at a time, text boxes and the people found back to the pool. */
const reader = new BibReader(workerData ?? {});
const port = parentPort!;
reader.load().then(
  () => port.postMessage({ ready: true }),
  (err: Error) => port.postMessage({ ready: false, error: err.message }),
);
port.on('message', ({ id, image }: { id: number; image: Uint8Array }) => {
  reader.candidates(Buffer.from(image.buffer, image.byteOffset, image.byteLength)).then(
    ({ boxes, people }) => port.postMessage({ id, boxes, people }),
    (err: Error) => port.postMessage({ id, error: err.message }),
  );
});
