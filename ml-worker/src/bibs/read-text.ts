import { BibRules, BoxGeometry, printedLikeABib, TextBox } from './extract';
import { PersonBox, placedLikeABib, TorsoRules } from './torso-gate';
import { numberCorners, numberGeometry, printGeometry, Rgba } from './box-geometry';
import type { LineReading } from './recognise-line';
import { cropRgba, FoundText, readOnce, TextCrop, touchesInnerEdge } from './text-crops';
import type { TextLine } from './text-detection';

/** The OCR models as the reader runs them: text lines of an image at a scale, and one line read. */
export interface TextOcr {
  detect(image: Rgba, scale: number): Promise<TextLine[]>;
  recognise(line: TextLine): Promise<LineReading | undefined>;
}

/**
 * The text boxes of the crops printed as a bib is (dark on a lighter patch) and, with `people`, lying
 * on someone's torso, each read once. Recognition (the costly part per box) runs only for boxes
 * the gates accept, once per printed text however many crops see it (readOnce), and the glyph pass
 * only for what reads as a number.
 */
export async function readTextBoxes(
  ocr: TextOcr,
  pixels: Rgba,
  crops: TextCrop[],
  people: PersonBox[] | null,
  rules: BibRules,
  torso: TorsoRules,
  inkBoxes = true,
): Promise<TextBox[]> {
  const found: Array<FoundText & { line: TextLine; geometry: BoxGeometry }> = [];
  for (const crop of crops) {
    const whole = crop.width === pixels.width && crop.height === pixels.height;
    for (const line of await ocr.detect(whole ? pixels : cropRgba(pixels, crop), crop.scale)) {
      const corners = line.box.map(([x, y]) => [x + crop.x, y + crop.y]);
      if (touchesInnerEdge(corners, crop, pixels.width, pixels.height)) continue; // cut by the crop: a neighbour's crop sees it whole
      const geometry = printGeometry(pixels, inkBoxes ? numberCorners(pixels, corners) : corners);
      if (!printedLikeABib(geometry, rules)) continue; // not dark print on a patch: no need to read it
      if (people && !placedLikeABib(geometry, people, torso)) continue; // on nobody: a sign, a plate, a clock
      found.push({ line, corners, crop, geometry });
    }
  }
  const boxes: TextBox[] = [];
  for (const { line, geometry } of readOnce(found, pixels.width, pixels.height)) {
    const result = await ocr.recognise(line);
    // Glyph heights and ground reach weigh numbers only (bibEvidence).
    if (result)
      boxes.push({
        text: result.text,
        confidence: result.mean,
        chars: result.chars,
        geometry: /\d/.test(result.text) ? numberGeometry(pixels, geometry) : geometry,
      });
  }
  return boxes;
}
