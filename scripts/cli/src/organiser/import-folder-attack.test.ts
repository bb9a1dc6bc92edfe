import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The attack (found by the review of 2026-12-01, each test failing before its mend): `import-photos --dir` lists the whole folder first (symlinks, FIFOs and
 * devices are skipped by their directory entry), then reads each file with readFileSync, which follows whatever the
 * name is by then, minutes later for a large folder. Someone who can write into the folder (a shared drop folder
 * of the event's photographers, a synced card reader) swaps a listed photo for a symlink to any file the operator
 * can read (another event's originals, a private photo) and it is imported and published; swapped for /dev/zero it
 * is read until memory runs out, for a FIFO the CLI blocks forever. Files have no size limit either (a file over 2 GiB
 * throws ERR_FS_FILE_TOO_LARGE and ends the whole import).
 */
const imported: Array<{ fileName: string; content: string }> = [];
let onImport: (fileName: string) => void = () => undefined;

jest.mock('@em/core', () => ({
  ...jest.requireActual('@em/core'),
  connectRedis: () => ({ disconnect: () => undefined }),
  ContentVersions: class {},
}));
jest.mock('@em/core/data', () => ({
  SqlEventsRepository: class {
    findById = async (id: number) => ({ id });
  },
  SqlPhotosRepository: class {},
}));
jest.mock('@em/core/storage', () => ({ ObjectStore: class {} }));
jest.mock('@em/core/jobs', () => ({
  JobQueues: class {
    close = async () => undefined;
  },
}));
jest.mock('@em/subgraph-images/pipeline', () => ({
  PipelineService: class {
    async importFile(_event: unknown, file: Buffer, origin: { fileName: string }) {
      imported.push({ fileName: origin.fileName, content: file.toString() });
      onImport(origin.fileName);
      return { status: 'imported', imageId: String(imported.length) };
    }
  },
}));

import { importFolder } from './import-folder';

describe('import-photos and the files of its folder', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'em-import-attack-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('imports only the files it listed, never what a name was turned into since (a symlink out of the folder)', async () => {
    const dir = path.join(root, 'drop');
    mkdirSync(dir);
    const secret = path.join(root, 'private-original.jpg');
    writeFileSync(secret, 'a private photo outside the import folder');
    writeFileSync(path.join(dir, 'a.jpg'), 'photo a');
    writeFileSync(path.join(dir, 'b.jpg'), 'photo b');
    // While a.jpg is being imported, b.jpg (already listed as a regular file) becomes a symlink.
    onImport = (fileName) => {
      if (fileName !== 'a.jpg') return;
      unlinkSync(path.join(dir, 'b.jpg'));
      symlinkSync(secret, path.join(dir, 'b.jpg'));
    };
    await importFolder({} as never, { REDIS_URL: 'redis://unused', UPLOAD_MAX_FILE_BYTES: 1 << 20 } as never, {
      event: '1',
      dir,
      'no-process': 'true',
    });
    // Before the mend: b.jpg is imported with the private file's bytes.
    expect(imported.map((f) => f.content)).not.toContain('a private photo outside the import folder');
  });
});
