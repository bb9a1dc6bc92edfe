// CPU of the video path with BlazeFace on the whole frame vs in square tiles, alternated in one run (60 s 720p bench video, keyed, one thread).
// [ONLY=whole|tiles] [FLICKER=1] node scripts/bench/probe/video-tiles-cost.cjs [rounds]  (after npm run build); with -r ./scripts/bench/probe/stage-timing.cjs: CPU per stage
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { buildSlideshow, probeVideo, sampleFrames } = require('@em/core/media');
const { FaceAnalyzer, VIDEO_FACE_OPTIONS, VideoFaceFinder } = require('@em/ml-worker');
const SAMPLES = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
(async () => {
  const faces = new FaceAnalyzer();
  await faces.load();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'em-tiles-'));
  const [a, b, c] = ['sample5.jpg', 'sample6.jpg', 'sample2.jpg'].map((f) => fs.readFileSync(path.join(SAMPLES, f)));
  const file = path.join(dir, 'bench.mp4');
  await buildSlideshow([{ image: null, seconds: 10 }, { image: a, seconds: 6 }, { image: b, seconds: 8 }, { image: null, seconds: 6 }, { image: c, seconds: 10 }, { image: a, seconds: 4 }, { image: null, seconds: 16 }], file);
  const probe = await probeVideo(file);
  const decode = { fps: 2, width: probe.width, height: probe.height, format: probe.format };
  const all = { whole: { ...VIDEO_FACE_OPTIONS, squareTiles: false }, tiles: VIDEO_FACE_OPTIONS };
  const variants = process.env.ONLY ? { [process.env.ONLY]: all[process.env.ONLY] } : all;
  for (let round = 0; round < Number(process.argv[2] ?? 2); round++) for (const [name, options] of Object.entries(variants)) {
    const finder = new VideoFaceFinder(faces, probe.width, probe.height, 2, undefined, options);
    let n = 0;
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    let i = 0;
    await sampleFrames(file, decode, async (rgb, time) => {
      const brighter = process.env.FLICKER && Math.floor(i++ / 4) % 2; // FLICKER=1: no key frame is still
      n += (await finder.frame(brighter ? Buffer.from(rgb.map((v) => Math.min(255, v + 10))) : rgb, time)).length;
    });
    n += (await finder.finish()).length;
    const u = process.cpuUsage(cpu);
    const wall = Number(process.hrtime.bigint() - t) / 1e9;
    console.log(`${name}: node CPU ${((u.user + u.system) / 1e6 / probe.durationSeconds).toFixed(3)} s per video second (${(probe.durationSeconds / ((u.user + u.system) / 1e6)).toFixed(2)}x by CPU), wall ${(probe.durationSeconds / wall).toFixed(2)}x, ${finder.analysed} analysed, ${finder.described} described, ${n} sightings, load ${os.loadavg()[0].toFixed(1)}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
})();
