// Shared by the face probes: every crop of the face fixtures, by person (the group shots left out).
const path = require('node:path');
const fs = require('node:fs');

const FIX = path.resolve(__dirname, '../../../../shared/fixtures/faces');

function faceCrops() {
  const crops = [];
  for (const p of fs.readdirSync(FIX).filter((d) => d !== 'group').sort()) {
    for (const f of fs.readdirSync(path.join(FIX, p)).sort()) crops.push({ person: p, name: `${p}/${f}`, image: fs.readFileSync(path.join(FIX, p, f)) });
  }
  return crops;
}

/** Each crop with its selfie descriptor. */
async function selfiesOf(faces, crops) {
  const selfies = [];
  for (const c of crops) selfies.push({ ...c, d: (await faces.embedSelfie(c.image)).descriptor });
  return selfies;
}

module.exports = { FIX, faceCrops, selfiesOf };
