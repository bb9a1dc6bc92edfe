import { availableParallelism, freemem } from 'node:os';

/** Free memory from which every core gets a selfie thread: each holds its own face models (~530 MB of RSS measured). */
export const FREE_BYTES_FOR_A_THREAD_PER_CORE = 4 * 1024 ** 3;
/** The most selfie threads the default gives, whatever the machine (each is ~530 MB). */
const MAX_DEFAULT_SELFIE_THREADS = 4;

export interface MachineForSelfies {
  cores: number;
  freeBytes: number;
}

export interface SelfieThreadsChoice {
  threads: number;
  /** Why: which rule applied, on what machine (logged at start, a label of the ml-worker's metric). */
  rule: 'cores' | 'half the cores';
}

/**
 * The default number of selfie threads: one per core when the machine has 4 GB free, so every core can embed a
 * selfie during a surge; else half the cores (the photo and video work keep their memory). At least 1, at most 4.
 */
export function defaultSelfieThreads(machine: MachineForSelfies): SelfieThreadsChoice {
  const cores = Math.max(1, machine.cores);
  if (machine.freeBytes >= FREE_BYTES_FOR_A_THREAD_PER_CORE)
    return { threads: Math.min(MAX_DEFAULT_SELFIE_THREADS, cores), rule: 'cores' };
  return { threads: Math.max(1, Math.min(MAX_DEFAULT_SELFIE_THREADS, Math.floor(cores / 2))), rule: 'half the cores' };
}

let atStart: MachineForSelfies | undefined;

/**
 * This machine's cores and the memory free for new threads (within a container's limit where Node knows it), as
 * first read by this process: the start's log explains the default the configuration took then.
 */
export function thisMachine(): MachineForSelfies {
  // Node 22's availableMemory() accounts for a cgroup limit; os.freemem() is the host's available memory.
  const { availableMemory } = process as { availableMemory?: () => number };
  atStart ??= { cores: availableParallelism(), freeBytes: availableMemory ? availableMemory() : freemem() };
  return atStart;
}
