import { parentPort, workerData } from 'node:worker_threads';
import { BibReader } from './bib-reader';

/** One OCR thread of BibReaderPool: its own models, one photo at a time, text boxes back to the pool. */
const reader = new BibReader(workerData ?? {});
const port = parentPort!;
reader.load().then(
  () => port.postMessage({ ready: true }),
  (err: Error) => port.postMessage({ ready: false, error: err.message }),
);
port.on('message', ({ id, image }: { id: number; image: Uint8Array }) => {
  reader.textBoxes(Buffer.from(image.buffer, image.byteOffset, image.byteLength)).then(
    (boxes) => port.postMessage({ id, boxes }),
    (err: Error) => port.postMessage({ id, error: err.message }),
  );
});
