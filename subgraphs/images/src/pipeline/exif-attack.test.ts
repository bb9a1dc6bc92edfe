import sharp from 'sharp';
import { readExif } from './exif';

/**
 * The attack (found by the review of 2026-12-01, each test failing before its mend): EXIF text goes into the photo row unscreened. An Artist tag with a NUL
 * (a few bytes anyone with an import or upload right can write into a JPEG) becomes `photographerName`, which Postgres
 * text cannot hold: the insert throws after the original was stored (an orphan object per try), `importFile`
 * rethrows, and the caller gets a 500. In the inbox the file is neither imported nor rejected, so it stays and every
 * later whole-inbox import (`importPhotos` without keys, up to 500 files a call) fails on it again: one photo blocks
 * the event's inbox import until someone finds and deletes it; the `import-photos` CLI stops at it too.
 */
describe('EXIF text of an uploaded photo', () => {
  async function jpegWithArtist(artist: string): Promise<Buffer> {
    const placeholder = 'Q'.repeat(artist.length);
    const jpg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .jpeg()
      .withExif({ IFD0: { Artist: placeholder, Make: 'Camera' } })
      .toBuffer();
    // libvips stops a tag at a NUL: write a placeholder of the same length, then put the bytes in place.
    const at = jpg.indexOf(Buffer.from(placeholder));
    Buffer.from(artist, 'latin1').copy(jpg, at);
    return jpg;
  }

  it('gives no NUL or other control character to the photo row (photographer name, camera make)', async () => {
    const exif = await readExif(await jpegWithArtist('Eve\u0000Mallory'), 'Europe/Berlin');
    // Before the mend: "Eve\u0000Mallory"
    const controls = [...(exif.artist ?? '')].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
    expect(controls).toEqual([]);
  });
});
