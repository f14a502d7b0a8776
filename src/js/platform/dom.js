// src/js/platform/dom.js: WebIDL's DOMException as Node 20 has it: name, message and the legacy
// code as getters, the legacy constants, Error.prototype below its prototype (so the engine
// reports one as an error). The other modules make theirs through natives.module('dom').
(function (natives) {
'use strict';
const ReflectApply = Reflect.apply, defineProperty = Object.defineProperty;
const wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;

// WebIDL's DOMException: name, message and the legacy code, with Error.prototype below it.
const legacyCodes = {
  IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
  NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InUseAttributeError: 10,
  InvalidStateError: 11, SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14,
  InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18, NetworkError: 19,
  AbortError: 20, URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23,
  InvalidNodeTypeError: 24, DataCloneError: 25,
};
const constants = [
  'INDEX_SIZE_ERR', 'DOMSTRING_SIZE_ERR', 'HIERARCHY_REQUEST_ERR', 'WRONG_DOCUMENT_ERR',
  'INVALID_CHARACTER_ERR', 'NO_DATA_ALLOWED_ERR', 'NO_MODIFICATION_ALLOWED_ERR', 'NOT_FOUND_ERR',
  'NOT_SUPPORTED_ERR', 'INUSE_ATTRIBUTE_ERR', 'INVALID_STATE_ERR', 'SYNTAX_ERR',
  'INVALID_MODIFICATION_ERR', 'NAMESPACE_ERR', 'INVALID_ACCESS_ERR', 'VALIDATION_ERR',
  'TYPE_MISMATCH_ERR', 'SECURITY_ERR', 'NETWORK_ERR', 'ABORT_ERR', 'URL_MISMATCH_ERR',
  'QUOTA_EXCEEDED_ERR', 'TIMEOUT_ERR', 'INVALID_NODE_TYPE_ERR', 'DATA_CLONE_ERR',
];
const domInternals = new WeakMap();

function domSelf(self) {
  const d = ReflectApply(wmGet, domInternals, [self]);
  if (!d) throw natives.util().nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type DOMException');
  return d;
}

class DOMException extends Error {
  constructor(message = '', options = 'Error') {
    super();
    let name;
    if (options !== null && typeof options === 'object') {
      if ('cause' in options)
        defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true });
      name = 'name' in options ? `${options.name}` : 'Error';
    } else {
      name = `${options}`;
    }
    ReflectApply(wmSet, domInternals, [this, { name: name, message: `${message}` }]);
  }
  get name() { return domSelf(this).name; }
  get message() { return domSelf(this).message; }
  get code() { const n = domSelf(this).name; return legacyCodes[n] || 0; }
}
defineProperty(DOMException.prototype, Symbol.toStringTag, { value: 'DOMException', configurable: true });
for (let i = 0; i < constants.length; i++) {
  const d = { value: i + 1, enumerable: true };
  defineProperty(DOMException, constants[i], d);
  defineProperty(DOMException.prototype, constants[i], d);
}

return { DOMException };
})
