// The run's value settles through timers: a sleep, a timer chain, Promise.race with a timeout.
// Timers created together fire by due time. Node and sbx read the clock at each setTimeout:
// Node's is in whole milliseconds (two calls a microsecond apart can start 1 ms apart, and
// equal due times go by creation), so the delays are 10 ms apart; and a host that stops the run
// between two calls (a loaded machine) shifts the later ones: such a try is made again (at
// most 5 times).
const sleep = (ms, v) => new Promise((r) => setTimeout(r, ms, v));
async function together(make) {
  for (let tries = 1; ; tries++) {
    const t0 = performance.now();
    const settled = make();
    if (performance.now() - t0 < 0.5 || tries === 5) return settled;
    await settled;
  }
}
const a = await sleep(5, 'a');
let chain = 0;
await new Promise((resolve) => { const step = () => (++chain < 5 ? setTimeout(step, 1) : resolve()); step(); });
const raced = await together(() => Promise.race([sleep(50, 'slow'), sleep(5, 'fast')]));
const viaImmediate = await new Promise((r) => setImmediate(r, 'imm'));
const order = await together(() => {
  const seen = [];
  return Promise.all([sleep(30).then(() => seen.push(3)), sleep(10).then(() => seen.push(1)),
                      sleep(20).then(() => seen.push(2))]).then(() => seen);
});
return [a, chain, raced, viaImmediate, order];
