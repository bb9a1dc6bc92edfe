// CPU per stage of the video path on the bench's 60 s video as "footage that always moves" (bench video: every other group of 4 frames 10 levels brighter).
// node -r ./scripts/bench/probe/stage-timing.cjs scripts/bench/probe/video-moving-stages.cjs [rounds]   (from the worktree root, after npm run build)
require('reflect-metadata');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { buildSlideshow, probeVideo, sampleFrames } = require('@em/core/media');
const ml = require(process.env.ML ?? '@em/ml-worker');
const SAMPLES = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');

/** Brighter by 10 (capped), written into a fresh buffer (a plain loop: Buffer.map costs more than the analysis stages measured here). */
function brighter(rgb) {
  const out = Buffer.allocUnsafe(rgb.length);
  for (let i = 0; i < rgb.length; i++) out[i] = Math.min(255, rgb[i] + 10);
  return out;
}

(async () => {
  const faces = new ml.FaceAnalyzer();
  await faces.load();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'em-vms-'));
  const [a, b, c] = ['sample5.jpg', 'sample6.jpg', 'sample2.jpg'].map((f) => fs.readFileSync(path.join(SAMPLES, f)));
  const bench = path.join(dir, 'bench.mp4');
  await buildSlideshow([{ image: null, seconds: 10 }, { image: a, seconds: 6 }, { image: b, seconds: 8 }, { image: null, seconds: 6 }, { image: c, seconds: 10 }, { image: a, seconds: 4 }, { image: null, seconds: 16 }], bench);
  const probe = await probeVideo(bench);
  for (let round = 0; round < Number(process.argv[2] ?? 1); round++) {
    const finder = new ml.VideoFaceFinder(faces, probe.width, probe.height, 2, undefined, ml.VIDEO_FACE_OPTIONS);
    let sightings = 0;
    let alterCpu = 0;
    const cpu = process.cpuUsage();
    let i = 0;
    await sampleFrames(bench, { fps: 2, width: probe.width, height: probe.height, format: probe.format }, async (rgb, time) => {
      const t = process.cpuUsage();
      const frame = Math.floor(i++ / 4) % 2 ? brighter(rgb) : rgb;
      const u = process.cpuUsage(t);
      alterCpu += (u.user + u.system) / 1e6;
      sightings += (await finder.frame(frame, time)).length;
    });
    sightings += (await finder.finish()).length;
    const u = process.cpuUsage(cpu);
    const total = (u.user + u.system) / 1e6;
    console.log(`round ${round}: CPU ${total.toFixed(2)} s (of which brightening ${alterCpu.toFixed(2)} s) = ${((total - alterCpu) / probe.durationSeconds).toFixed(3)} s per video second without it; ${finder.analysed} analysed, ${finder.described} described, ${sightings} sightings; load ${os.loadavg()[0].toFixed(1)}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
})();
