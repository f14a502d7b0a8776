// queueMicrotask runs in the same queue as promise reactions, in order, with no arguments.
const log = [];
queueMicrotask(function () { log.push('q1 args=' + arguments.length + ' this=' + typeof this); });
Promise.resolve().then(() => log.push('p1'));
queueMicrotask(() => { log.push('q2'); queueMicrotask(() => log.push('q2 nested')); });
Promise.resolve().then(() => log.push('p2'));
await null;
log.push('after await');
await new Promise((r) => setTimeout(r, 1));
return log;
