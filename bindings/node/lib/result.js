'use strict';
// libsbx's result JSON (sbx_result_to_json, the shape `sbx eval` prints) as a SandboxResult.
const { SandboxError } = require('./errors');
function toResult(json) {
  const r = JSON.parse(json);
  if (r.value === undefined) r.value = null;
  return r;
}

function contextJson(context) {
  if (context === undefined) return null;
  let text;
  try {
    text = JSON.stringify(context);
  } catch (e) {
    throw new SandboxError('SANDBOX_INVALID_ARGUMENT', `context is not JSON-serialisable: ${e.message}`);
  }
  if (text === undefined) {
    throw new SandboxError('SANDBOX_INVALID_ARGUMENT', 'context is not JSON-serialisable');
  }
  return text;
}

module.exports = { toResult, contextJson };
