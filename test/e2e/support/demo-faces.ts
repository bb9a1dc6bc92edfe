import path from 'node:path';
import sharp from 'sharp';
import { info, sql } from './platform';

/** face-api's demo photos: the demo event is seeded from them, so their faces are analysed. */
export const DEMO_PHOTOS = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');

/** The largest face of a demo photo (as the demo event analysed it), cropped with a margin: a selfie. */
export async function faceCrop(file: string): Promise<Buffer> {
  const [face] = await sql(
    `select f.box_x as x, f.box_y as y, f.box_width as w, f.box_height as h from faces f join photos p on p.id = f.photo_id
      where p.event_id = $1 and p.original_file_name = $2 order by f.box_width desc limit 1`,
    [info.demo.eventId, file],
  );
  const image = path.join(DEMO_PHOTOS, file);
  const { width, height } = await sharp(image).metadata();
  const left = Math.max(0, Math.round((face.x - face.w * 0.3) * width));
  const top = Math.max(0, Math.round((face.y - face.h * 0.3) * height));
  return sharp(image)
    .extract({
      left,
      top,
      width: Math.min(width - left, Math.round(face.w * 1.6 * width)),
      height: Math.min(height - top, Math.round(face.h * 1.6 * height)),
    })
    .jpeg()
    .toBuffer();
}
