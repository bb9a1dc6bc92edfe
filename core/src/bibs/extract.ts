/** One text box read by OCR, with its own confidence (0-1). */
export interface TextBox {
  text: string;
  confidence: number;
}

export interface BibRules {
  minLength: number;
  maxLength: number;
  /** Box confidence a bib needs (every true bib of the fixtures read at >= 0.99; partial ones lower). */
  minConfidence: number;
}

export const DEFAULT_BIB_RULES: BibRules = { minLength: 2, maxLength: 5, minConfidence: 0.95 };

/**
 * BIB numbers in OCR text boxes: whole tokens of 2-5 digits (after NFKC and trimming punctuation,
 * `N°552` -> 552), without leading zero, read with enough confidence. Tokens mixing digits with
 * letters or hyphens (plates, "10km", dates) are not bibs. A number contained in a longer one read
 * on the same photo (a partly hidden bib) is dropped. Returns bib -> best confidence.
 */
export function extractBibs(boxes: TextBox[], rules: BibRules = DEFAULT_BIB_RULES): Map<string, number> {
  const found = new Map<string, number>();
  const allDigits = new Set<string>();
  for (const { text, confidence } of boxes) {
    const normalised = text.normalize('NFKC');
    for (const digits of normalised.match(/\d+/g) ?? []) allDigits.add(digits.replace(/^0+(?=\d)/, ''));
    if (confidence < rules.minConfidence) continue;
    for (let token of normalised.split(/\s+/)) {
      token = token.replace(/^[^0-9A-Za-z]+|[^0-9A-Za-z]+$/g, '').replace(/^N[°o]?(?=\d)/, '');
      if (!/^\d+$/.test(token) || token.startsWith('0')) continue;
      if (token.length < rules.minLength || token.length > rules.maxLength) continue;
      found.set(token, Math.max(found.get(token) ?? 0, confidence));
    }
  }
  for (const bib of [...found.keys()]) {
    if ([...allDigits].some((other) => other.length > bib.length && other.includes(bib))) found.delete(bib);
  }
  return found;
}
