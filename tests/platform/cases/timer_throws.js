// An exception a timer callback does not catch ends the run (Node: an uncaught exception).
setTimeout(() => { throw new RangeError('from a timer'); }, 1);
await new Promise((r) => setTimeout(r, 20));
return 'not reached';
