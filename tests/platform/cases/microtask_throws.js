// An exception a queueMicrotask callback does not catch ends the run.
queueMicrotask(() => { throw new TypeError('from a microtask'); });
await new Promise((r) => setTimeout(r, 5));
return 'not reached';
