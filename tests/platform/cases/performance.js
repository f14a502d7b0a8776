//! node: skip
//! value: [true, true, true, true, true, "[object Performance]", true]
// performance.now() counts from the run's start on a 100 us grid (browsers coarsen it too);
// timeOrigin is the wall clock then, on the same grid.
const samples = [];
for (let i = 0; i < 200; i++) samples.push(performance.now());
const grid = samples.every((t) => Math.abs(t * 10 - Math.round(t * 10)) < 1e-6);
const monotonic = samples.every((t, i) => i === 0 || t >= samples[i - 1]);
const fresh = samples[0] >= 0 && samples[0] < 1000;
const origin = Math.abs(performance.timeOrigin + performance.now() - Date.now()) < 50;
const originGrid = Math.abs(performance.timeOrigin * 10 - Math.round(performance.timeOrigin * 10)) < 1e-3;
return [grid, monotonic, fresh, origin, originGrid, String(performance), JSON.stringify(performance.toJSON()) === JSON.stringify({ timeOrigin: performance.timeOrigin })];
