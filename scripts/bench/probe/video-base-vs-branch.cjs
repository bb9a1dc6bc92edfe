// Base and branch video paths alternated in one run: the 60 s bench video (CPU per video second, one thread, key frames)
// and the turned-heads video (present people found within 1 s, absent people with a window), as bench video / video-turned measure them.
// BASE=<a compiled ml-worker dist of the base commit> NODE_PATH=node_modules node scripts/bench/probe/video-base-vs-branch.cjs [rounds]
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const sharp = require('sharp');
const { buildSegments, buildSlideshow, DEFAULT_MATCH_PERCENT, descriptorToBuffer, percentToDistance, probeVideo, sampleFrames } = require('@em/core/media');
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

/** FLICKER=1: the brightness of every other group of 4 frames is raised by 10 (no key frame looks like the one before: footage that always moves, as far as the still-shot skip can tell). */
const flicker = (rgb, i) => (process.env.FLICKER && Math.floor(i / 4) % 2 ? rgb.map((v) => Math.min(255, v + 10)) : rgb);

async function index(build, faces, file, probe, keep) {
  const finder = new build.VideoFaceFinder(faces, probe.width, probe.height, 2, undefined, build.VIDEO_FACE_OPTIONS);
  const cpu = process.cpuUsage();
  let i = 0;
  await sampleFrames(file, { fps: 2, width: probe.width, height: probe.height, format: probe.format }, async (rgb, time) => keep(await finder.frame(flicker(rgb, i++), time)));
  keep(await finder.finish());
  const u = process.cpuUsage(cpu);
  return { cpu: (u.user + u.system) / 1e6, finder };
}

(async () => {
  const analyzers = {};
  for (const [name, build] of Object.entries(builds)) { analyzers[name] = new build.FaceAnalyzer(); await analyzers[name].load(); }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'em-bvb-'));
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
  for (const n of [...PRESENT.map(([n]) => n), ...ABSENT]) selfies.set(n, (await analyzers.branch.embedSelfie(fs.readFileSync(path.join(DIR, n)))).descriptor);
  for (let round = 0; round < Number(process.argv[2] ?? 2); round++) for (const name of Object.keys(builds)) {
    let sightings = 0;
    const run = await index(builds[name], analyzers[name], bench, pb, (s) => { sightings += s.length; });
    const idx = new EventFaceIndex();
    let id = 0;
    const t = await index(builds[name], analyzers[name], turned, pt, (ss) => { for (const s of ss) idx.add(String(++id), `v@${s.time}`, descriptorToBuffer(s.descriptor), s.descriptorVersion, `v#${s.track}`, s.quality); });
    const windows = (d) => (d ? buildSegments(idx.search(d, percentToDistance(DEFAULT_MATCH_PERCENT), 20000).map((h) => Number(h.ref.split('@')[1])), 2, pt.durationSeconds, { maxGapSeconds: 3, minSegmentSeconds: 1, paddingStartSeconds: 0, paddingEndSeconds: 0, maxDurationSeconds: 30 }) : []);
    const found = [];
    const missed = [];
    for (const [n, shot] of PRESENT) {
      const w = windows(selfies.get(n));
      const ok = w.length === 1 && Math.abs(w[0].start - AUDIENCE[shot].start) <= 1 && Math.abs(w[0].end - AUDIENCE[shot].end) <= 1;
      (ok ? found : missed).push(`${n.split('/')[0]} ${JSON.stringify(w.map((s) => [s.start, s.end]))}`);
    }
    const absent = ABSENT.filter((n) => windows(selfies.get(n)).length > 0);
    console.log(`${name}: 60 s video CPU ${(run.cpu / pb.durationSeconds).toFixed(3)} s per video second (${(pb.durationSeconds / run.cpu).toFixed(2)}x by CPU), ${run.finder.analysed} analysed, ${run.finder.still ?? '-'} still, ${run.finder.described} described, ${sightings} sightings | turned: found ${found.length}/5 [${found.join('; ')}] missed [${missed.join('; ')}], absent with window ${absent.length}/3, CPU ${(t.cpu / pt.durationSeconds).toFixed(3)} s/s | load ${os.loadavg()[0].toFixed(1)}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
})();
