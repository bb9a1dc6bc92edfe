/** One line that redraws itself on a terminal, and prints plainly elsewhere (CI, pipes). */
export function progress(label: string, done: number, total: number, extra = ''): void {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${extra}`;
  if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
  else if (done === total) console.log(line);
}
