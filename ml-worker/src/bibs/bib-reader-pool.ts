import { RgbPixels } from '../photos/photo-pixels';
import { BibRead, BibRules, DEFAULT_BIB_RULES, readBibsWithUnsure, TextBox } from './extract';
import { PersonBox } from './torso-gate';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BibReaderOptions } from './bib-reader';
import type { OcrModelGraphs } from './ocr-model-graph';

/** What the photo job needs of a BIB reader (BibReader in-process, or this pool of threads). */
export interface BibReading {
  load(): Promise<unknown>;
  read(image: Buffer): Promise<Map<string, number>>;
  /** The bibs and the people the reader found on the way (null without the torso gate): the face step looks at their heads. */
  readPhoto(image: Buffer): Promise<BibPhotoReading>;
  /** readPhoto on a photo already decoded (the photo job's one decode: decodePhoto). */
  readPixels(pixels: RgbPixels): Promise<BibPhotoReading>;
}

export interface BibPhotoReading {
  /** The whole sure reads: bib -> best confidence. */
  bibs: Map<string, number>;
  /** Every read with its box, whether it is partial (cut by the frame or an occluder: not a bib of its own) or unsure. */
  reads: BibRead[];
  people: PersonBox[] | null;
}

/** The photo's reading from the text boxes a reader found: every read, and the whole ones as bibs. */
export function photoReading(boxes: TextBox[], rules: BibRules, people: PersonBox[] | null): BibPhotoReading {
  const reads = readBibsWithUnsure(boxes, rules, people ?? undefined);
  const bibs = new Map<string, number>();
  for (const read of reads)
    if (!read.partial && !read.unsure) bibs.set(read.bib, Math.max(bibs.get(read.bib) ?? 0, read.confidence));
  return { bibs, reads, people };
}

interface Candidates {
  boxes: TextBox[];
  people?: PersonBox[] | null;
}

/** What a thread starts with: its reader's options, and the OCR graphs another thread built (else it builds them). */
export interface OcrThreadData {
  options: Partial<BibReaderOptions>;
  graphs?: OcrModelGraphs;
}

/** What a thread reads: an encoded photo, or one already decoded (RGB). */
export type ThreadPhoto = { image: Uint8Array } | { pixels: { data: Uint8Array; width: number; height: number } };

interface Pending {
  resolve(candidates: Candidates): void;
  reject(err: Error): void;
}

interface OcrThread {
  worker: Worker;
  ready: Promise<void>;
  pending: Map<number, Pending>;
}

/**
 * OCR on `size` worker threads, each with its own models (onnxruntime runs a model synchronously
 * on the calling thread, so one process reads one photo at a time without them). A photo goes to
 * the least busy thread; the bib rules run here, on the boxes the thread found. A thread that dies
 * fails its photos (the job retries) and is replaced.
 */
export class BibReaderPool implements BibReading {
  private readonly threads: OcrThread[] = [];
  private nextId = 0;
  private closing = false;
  /** The OCR graphs the first thread built (`fuseOcrModel`'s rewrite), handed to every thread started after it. */
  private graphs?: OcrModelGraphs;
  private graphsBuilt?: Promise<unknown>;

  constructor(
    private readonly size: number,
    /** Passed to each thread's BibReader. */
    private readonly options: Partial<BibReaderOptions> = {},
    /** The thread's compiled script (tests running from src/ point at dist/). */
    private readonly threadScript = path.join(__dirname, 'bib-thread.js'),
  ) {}

  async load(): Promise<void> {
    // The first thread rewrites the graphs and hands them over: the others load its bytes instead of each rewriting them.
    if (!this.threads.length) this.threads.push(this.spawn());
    if (this.threads.length < this.size) await Promise.race([this.graphsBuilt, this.threads[0].ready]);
    while (this.threads.length < this.size) this.threads.push(this.spawn());
    await Promise.all(this.threads.map((t) => t.ready));
  }

  async read(image: Buffer): Promise<Map<string, number>> {
    return (await this.readPhoto(image)).bibs;
  }

  async readPhoto(image: Buffer): Promise<BibPhotoReading> {
    const copy = new Uint8Array(image); // its own buffer, handed over without a second copy
    return this.readOnThread({ image: copy }, copy.buffer);
  }

  async readPixels(pixels: RgbPixels): Promise<BibPhotoReading> {
    const copy = new Uint8Array(pixels.data);
    return this.readOnThread({ pixels: { data: copy, width: pixels.width, height: pixels.height } }, copy.buffer);
  }

  private async readOnThread(photo: ThreadPhoto, transfer: ArrayBuffer): Promise<BibPhotoReading> {
    if (!this.threads.length) await this.load();
    const thread = this.threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    await thread.ready;
    const id = this.nextId++;
    const { boxes, people } = await new Promise<Candidates>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, ...photo }, [transfer]);
    });
    return photoReading(boxes, this.options.rules ?? DEFAULT_BIB_RULES, people ?? null);
  }

  async close(): Promise<void> {
    this.closing = true;
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private spawn(): OcrThread {
    const workerData: OcrThreadData = { options: this.options, graphs: this.graphs };
    const worker = new Worker(this.threadScript, { workerData });
    const pending = new Map<number, Pending>();
    const thread: OcrThread = { worker, pending, ready: Promise.resolve() };
    let graphsArrived: (graphs: OcrModelGraphs) => void = () => undefined;
    if (!this.graphs) this.graphsBuilt ??= new Promise<OcrModelGraphs>((resolve) => (graphsArrived = resolve));
    thread.ready = new Promise<void>((resolve, reject) => {
      worker.on(
        'message',
        (msg: {
          ready?: boolean;
          graphs?: OcrModelGraphs;
          id?: number;
          boxes?: TextBox[];
          people?: PersonBox[] | null;
          error?: string;
        }) => {
          if (msg.graphs) {
            this.graphs ??= msg.graphs;
            return graphsArrived(msg.graphs);
          }
          if (msg.ready !== undefined)
            return msg.ready ? resolve() : reject(new Error(`OCR thread failed to load: ${msg.error}`));
          const job = pending.get(msg.id!);
          pending.delete(msg.id!);
          if (msg.error !== undefined) job?.reject(new Error(msg.error));
          else job?.resolve({ boxes: msg.boxes ?? [], people: msg.people });
        },
      );
    });
    thread.ready.catch(() => undefined);
    const fail = (err: Error) => {
      if (this.closing) return;
      for (const job of pending.values()) job.reject(err);
      pending.clear();
      const index = this.threads.indexOf(thread);
      if (index >= 0) this.threads[index] = this.spawn();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => code !== 0 && fail(new Error(`OCR thread exited with code ${code}`)));
    return thread;
  }
}
