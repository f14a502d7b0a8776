// The run's value settles through timers: a sleep, a timer chain, Promise.race with a timeout.
const sleep = (ms, v) => new Promise((r) => setTimeout(r, ms, v));
const a = await sleep(5, 'a');
let chain = 0;
await new Promise((resolve) => { const step = () => (++chain < 5 ? setTimeout(step, 1) : resolve()); step(); });
const raced = await Promise.race([sleep(50, 'slow'), sleep(5, 'fast')]);
const viaImmediate = await new Promise((r) => setImmediate(r, 'imm'));
const order = [];
await Promise.all([sleep(3).then(() => order.push(3)), sleep(1).then(() => order.push(1)), sleep(2).then(() => order.push(2))]);
return [a, chain, raced, viaImmediate, order];
