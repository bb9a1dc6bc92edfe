// Base and branch video paths alternated in one run, as bench video / video-turned measure them:
// the 60 s bench video as footage that always moves and as it is (CPU per video second, one thread), person A's clip windows,
// and the turned-heads video (present people found within 1 s, absent people with a window).
// BASE=<a compiled ml-worker dist of the base commit> NODE_PATH=node_modules node scripts/bench/probe/video-before-after.cjs [rounds]
// The base runs with tfjs-wasm's own Concat kernel (the branch replaces it: kernels are per thread, so it is swapped per round).
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const sharp = require('sharp');
const tf = require('@tensorflow/tfjs');
require('@tensorflow/tfjs-backend-wasm');
const originalConcat = tf.getKernel('Concat', 'wasm');
const { buildSegments, buildSlideshow, DEFAULT_MATCH_PERCENT, descriptorToBuffer, percentToDistance, probeVideo, sampleFrames, FaceMatrix } = require('@em/core/media');
const { EventFaceIndex } = require('@em/core/data');
const builds = { base: require(process.env.BASE), branch: require('@em/ml-worker') };
const { DIR, composeFrame } = require('./turned-shot.cjs');
const SAMPLES = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const AUDIENCE = [
  { start: 4, end: 12, faces: [{ crop: 'howard/2.png', turned: true }, { crop: 'bernadette/2.png', turned: true }, { crop: 'penny/1.png', turned: false }] },
  { start: 16, end: 22, faces: [{ crop: 'raj/2.png', turned: false }, { crop: 'amy/2.png', turned: false }] },
];
const PRESENT = [['howard/1.png', 0], ['bernadette/4.png', 0], ['penny/3.png', 0], ['raj/1.png', 1], ['amy/1.png', 1]];
const ABSENT = ['leonard/1.png', 'sheldon/1.png', 'stuart/1.png'];
const A_TRUTH = [{ start: 10, end: 16 }, { start: 40, end: 44 }];
const WINDOWS = { maxGapSeconds: 3, minSegmentSeconds: 1, paddingStartSeconds: 0, paddingEndSeconds: 0, maxDurationSeconds: 30 };

function brighter(rgb) {
  const out = Buffer.allocUnsafe(rgb.length);
  for (let i = 0; i < rgb.length; i++) out[i] = Math.min(255, rgb[i] + 10);
  return out;
}

async function index(build, faces, file, probe, keep, moving = false) {
  const finder = new build.VideoFaceFinder(faces, probe.width, probe.height, 2, undefined, build.VIDEO_FACE_OPTIONS);
  let cpu = 0;
  let i = 0;
  const add = (u) => { cpu += (u.user + u.system) / 1e6; };
  await sampleFrames(file, { fps: 2, width: probe.width, height: probe.height, format: probe.format }, async (rgb, time) => {
    const frame = moving && Math.floor(i / 4) % 2 ? brighter(rgb) : rgb;
    i++;
    const t = process.cpuUsage();
    const s = await finder.frame(frame, time);
    add(process.cpuUsage(t));
    keep(s);
  });
  const t = process.cpuUsage();
  const s = await finder.finish();
  add(process.cpuUsage(t));
  keep(s);
  return { cpu, finder };
}

(async () => {
  const analyzers = {};
  for (const [name, build] of Object.entries(builds)) { analyzers[name] = new build.FaceAnalyzer(); await analyzers[name].load(); }
  const fastConcat = tf.getKernel('Concat', 'wasm');
  const useConcat = (k) => { tf.unregisterKernel('Concat', 'wasm'); tf.registerKernel(k); };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'em-vba-'));
  const [a, b, c] = ['sample5.jpg', 'sample6.jpg', 'sample2.jpg'].map((f) => fs.readFileSync(path.join(SAMPLES, f)));
  const bench = path.join(dir, 'bench.mp4');
  await buildSlideshow([{ image: null, seconds: 10 }, { image: a, seconds: 6 }, { image: b, seconds: 8 }, { image: null, seconds: 6 }, { image: c, seconds: 10 }, { image: a, seconds: 4 }, { image: null, seconds: 16 }], bench);
  const slides = [];
  let at = 0;
  for (const shot of AUDIENCE) {
    slides.push({ image: null, seconds: shot.start - at });
    const half = (shot.end - shot.start) / 2;
    for (const scale of [0.6, 0.8]) slides.push({ image: await (await composeFrame(shot.faces, scale)).png().toBuffer(), seconds: half });
    at = shot.end;
  }
  slides.push({ image: null, seconds: 28 - at });
  const turned = path.join(dir, 'turned.mp4');
  await buildSlideshow(slides, turned);
  const [pb, pt] = [await probeVideo(bench), await probeVideo(turned)];
  const selfies = new Map();
  for (const n of [...PRESENT.map(([n]) => n), ...ABSENT]) selfies.set(n, (await analyzers.base.embedSelfie(fs.readFileSync(path.join(DIR, n)))).descriptor);
  // Person A's selfie, as the bench cuts it.
  const found = await analyzers.base.detectAll(a);
  const face = found.sort((x, y) => y.box.width * y.box.height - x.box.width * x.box.height)[0];
  const meta = await sharp(a).metadata();
  const left = Math.max(0, Math.round((face.box.x - face.box.width * 0.3) * meta.width));
  const top = Math.max(0, Math.round((face.box.y - face.box.height * 0.3) * meta.height));
  const crop = await sharp(a).extract({ left, top, width: Math.min(meta.width - left, Math.round(face.box.width * 1.6 * meta.width)), height: Math.min(meta.height - top, Math.round(face.box.height * 1.6 * meta.height)) }).jpeg().toBuffer();
  const selfieA = (await analyzers.base.embedSelfie(crop)).descriptor;
  const only = (process.env.ONLY ?? 'moving,still,turned').split(',');
  // NOLOOK=1: also the branch with every followed face described when due, whatever its look (what the look skip buys).
  const names = [...Object.keys(builds), ...(process.env.NOLOOK ? ['branch-nolook'] : [])];
  const looks = builds.branch.VideoFaceFinder.prototype.looksAsDescribed;
  for (let round = 0; round < Number(process.argv[2] ?? 2); round++) for (const label of names) {
    const name = label === 'branch-nolook' ? 'branch' : label;
    builds.branch.VideoFaceFinder.prototype.looksAsDescribed = label === 'branch-nolook' ? () => false : looks;
    useConcat(name === 'base' ? originalConcat : fastConcat);
    const out = [label];
    if (only.includes('moving')) {
      let sightings = 0;
      const m = await index(builds[name], analyzers[name], bench, pb, (s) => { sightings += s.length; }, true);
      out.push(`moving ${(m.cpu / pb.durationSeconds).toFixed(3)} s/s (${(pb.durationSeconds / m.cpu).toFixed(2)}x by CPU) ${m.finder.analysed} analysed ${m.finder.described} described ${sightings} sightings`);
    }
    if (only.includes('still')) {
      const rows = [];
      const s = await index(builds[name], analyzers[name], bench, pb, (ss) => { for (const x of ss) rows.push(x); });
      const matrix = new FaceMatrix();
      for (const x of rows) matrix.add(x.descriptor);
      const hits = matrix.within(selfieA, percentToDistance(DEFAULT_MATCH_PERCENT), 20000);
      const tracks = new Set(hits.map((h) => rows[h.row].track));
      const segs = buildSegments(rows.filter((x) => tracks.has(x.track)).map((x) => x.time), 2, pb.durationSeconds, WINDOWS);
      const err = segs.length === 2 ? Math.max(...segs.flatMap((w, i) => [Math.abs(w.start - A_TRUTH[i].start), Math.abs(w.end - A_TRUTH[i].end)])) : NaN;
      out.push(`still ${(s.cpu / pb.durationSeconds).toFixed(3)} s/s ${s.finder.analysed} analysed; A windows ${segs.length}/2 err ${err.toFixed(2)} ${JSON.stringify(segs.map((w) => [w.start, w.end]))}`);
    }
    if (only.includes('turned')) {
      const idx = new EventFaceIndex();
      let id = 0;
      const t = await index(builds[name], analyzers[name], turned, pt, (ss) => { for (const s of ss) idx.add(String(++id), `v@${s.time}`, descriptorToBuffer(s.descriptor), s.descriptorVersion, `v#${s.track}`, s.quality); });
      const windows = (d) => (d ? buildSegments(idx.search(d, percentToDistance(DEFAULT_MATCH_PERCENT), 20000).map((h) => Number(h.ref.split('@')[1])), 2, pt.durationSeconds, WINDOWS) : []);
      const ok = [];
      const missed = [];
      for (const [n, shot] of PRESENT) {
        const w = windows(selfies.get(n));
        const good = w.length === 1 && Math.abs(w[0].start - AUDIENCE[shot].start) <= 1 && Math.abs(w[0].end - AUDIENCE[shot].end) <= 1;
        (good ? ok : missed).push(`${n.split('/')[0]} ${JSON.stringify(w.map((s) => [s.start, s.end]))}`);
      }
      const absent = ABSENT.filter((n) => windows(selfies.get(n)).length > 0);
      out.push(`turned ${ok.length}/5 absent ${absent.length}/3 ${missed.length ? `missed [${missed.join('; ')}] ` : ''}${(t.cpu / pt.durationSeconds).toFixed(3)} s/s ${t.finder.analysed} analysed`);
    }
    console.log(`${out.join(' | ')} | load ${os.loadavg()[0].toFixed(1)}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
})();
