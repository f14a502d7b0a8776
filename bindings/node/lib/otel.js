'use strict';
// Optional telemetry: when the host has @opentelemetry/api installed, libsbx's own telemetry
// hooks are forwarded to it: the span "sandbox.run" (attributes backend, outcome, error.code,
// wasm.export), the counters sandbox.runs_total and plugin.permission_denied_total{capability}
// and the histogram sandbox.duration_ms, named, labelled and timed by libsbx. Without the
// package nothing is installed and nothing changes.
const native = require('./native');

let api = null;
try {
  api = require('@opentelemetry/api');
} catch {
  api = null;
}

function install() {
  const tracer = api.trace.getTracer('sbx');
  const meter = api.metrics.getMeter('sbx');
  const spans = new Map();
  const counters = new Map();
  const histograms = new Map();
  const instrument = (map, name, make) => {
    if (!map.has(name)) map.set(name, make(name));
    return map.get(name);
  };
  const handlers = {
    spanStart: (e) => spans.set(e.span, tracer.startSpan(e.name, { attributes: e.attributes, startTime: e.timeMs })),
    spanEnd: (e) => {
      const span = spans.get(e.span);
      if (!span) return;
      spans.delete(e.span);
      span.setAttributes(e.attributes);
      if (e.isError) span.setStatus({ code: api.SpanStatusCode.ERROR, message: e.status });
      span.end(e.timeMs);
    },
    counter: (e) => instrument(counters, e.name, (n) => meter.createCounter(n)).add(e.value, e.attributes),
    histogram: (e) => instrument(histograms, e.name, (n) => meter.createHistogram(n, { unit: 'ms' }))
      .record(e.value, e.attributes),
  };
  native.telemetryInstall((e) => handlers[e.kind](e));
}

if (api) install();

module.exports = { enabled: () => api !== null };
