// src/js/platform/urlparse.js: the WHATWG URL Standard's parsers and serializers (written for sbx
// from the standard's text; section numbers below are the standard's), for url.js. The basic URL
// parser is one state machine over the input's UTF-16 code units (the input is a USVString, so
// surrogates come in pairs); hosts go through the IPv4/IPv6 parsers here and, for non-ASCII or
// punycode domains, UTS #46 in ICU (natives.domainToASCII). Guests run without a JIT, where an
// interpreted step costs about 0.2 us and a string method or regular expression call 0.3-3 us:
// the character-level work is native (urlcodec.cpp: clean-up, runs a state collects,
// percent-encoding), one call per component.
(function (natives) {
'use strict';

// WebIDL USVString: a lone surrogate becomes U+FFFD.
function usv(value) { return natives.urlInput(value, 0); }

// 1.3 percent-encode sets (urlcodec.cpp has their members).
const C0_CONTROL = 1, FRAGMENT = 2, QUERY = 4, SPECIAL_QUERY = 8, PATH = 16, USERINFO = 32,
  FORM = 64;

function percentEncodeString(s, set, spaceAsPlus) { return natives.urlEncode(s, set, spaceAsPlus); }

function hexValue(c) {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

// Percent-decodes the UTF-8 of s and decodes the bytes as UTF-8 (with U+FFFD for errors). The
// UTF-8 of a USVString decodes back to itself, so text without "%" is its own result.
function percentDecodeString(s) {
  if (s.indexOf('%') < 0) return s;
  const bytes = natives.utf8Encode(s);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x25 && i + 2 < bytes.length) {
      const h = hexValue(bytes[i + 1]), l = hexValue(bytes[i + 2]);
      if (h >= 0 && l >= 0) { out[n++] = h * 16 + l; i += 2; continue; }
    }
    out[n++] = b;
  }
  return natives.decode(0, null, out.subarray(0, n), false, false)[0];
}

// 3.2 hosts: what a host may not contain (a domain's, urlcodec.cpp checks).
const FORBIDDEN_HOST = /[\u0000\t\n\r #/:<>?@[\\\]^|]/;

// 3.5 host parsing. Hosts are kept serialized (3.6): an IPv6 address with its brackets.
const FAILURE = null;

function parseHost(input, isOpaque) {
  if (input.charCodeAt(0) === 0x5B) {
    if (input.charCodeAt(input.length - 1) !== 0x5D) return FAILURE;
    const inner = input.slice(1, -1), codes = [];
    for (let i = 0; i < inner.length; i++) codes[i] = inner.charCodeAt(i);
    const pieces = parseIPv6(codes);
    return pieces === FAILURE ? FAILURE : '[' + serializeIPv6(pieces) + ']';
  }
  if (isOpaque)
    return FORBIDDEN_HOST.test(input) ? FAILURE : percentEncodeString(input, C0_CONTROL, false);
  // 3.3 domain to ASCII (beStrict false), then its forbidden code points: natively.
  const ascii = natives.domainToASCII(percentDecodeString(input));
  if (ascii === null) return FAILURE;
  if (endsInNumber(ascii)) {
    const v4 = parseIPv4(ascii);
    return v4 === FAILURE ? FAILURE : serializeIPv4(v4);
  }
  return ascii;
}

function endsInNumber(input) {
  // Only a last label that starts with a digit can be a number (the usual domain is not).
  let end = input.length;
  if (input.charCodeAt(end - 1) === 0x2E) end--;
  const start = input.lastIndexOf('.', end - 1) + 1;
  if (!isDigit(input.charCodeAt(start))) return false;
  const parts = input.split('.');
  if (parts[parts.length - 1] === '') {
    if (parts.length === 1) return false;
    parts.length--;
  }
  const last = parts[parts.length - 1];
  if (last !== '' && /^[0-9]+$/.test(last)) return true;
  return parseIPv4Number(last) !== FAILURE;
}

function parseIPv4Number(input) {
  if (input === '') return FAILURE;
  let radix = 10;
  if (input.length >= 2 && (input.charCodeAt(1) | 0x20) === 0x78 && input.charCodeAt(0) === 0x30) {
    input = input.slice(2);
    radix = 16;
  } else if (input.length >= 2 && input.charCodeAt(0) === 0x30) {
    input = input.slice(1);
    radix = 8;
  }
  if (input === '') return 0;
  const digits = radix === 10 ? /^[0-9]+$/ : radix === 16 ? /^[0-9A-Fa-f]+$/ : /^[0-7]+$/;
  if (!digits.test(input)) return FAILURE;
  return parseInt(input, radix);
}

function parseIPv4(input) {
  const parts = input.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts.length--;
  if (parts.length > 4) return FAILURE;
  const numbers = [];
  for (let i = 0; i < parts.length; i++) {
    const n = parseIPv4Number(parts[i]);
    if (n === FAILURE) return FAILURE;
    numbers[i] = n;
  }
  for (let i = 0; i < numbers.length - 1; i++) if (numbers[i] > 255) return FAILURE;
  const last = numbers[numbers.length - 1];
  if (last >= Math.pow(256, 5 - numbers.length)) return FAILURE;
  let ipv4 = last;
  for (let i = 0; i < numbers.length - 1; i++) ipv4 += numbers[i] * Math.pow(256, 3 - i);
  return ipv4;
}

function serializeIPv4(n) {
  const out = [];
  for (let i = 0; i < 4; i++) {
    out[3 - i] = '' + (n % 256);
    n = Math.floor(n / 256);
  }
  return out.join('.');
}

function isDigit(c) { return c >= 0x30 && c <= 0x39; }

function parseIPv6(input) {
  const address = [0, 0, 0, 0, 0, 0, 0, 0];
  let pieceIndex = 0, compress = null, p = 0;
  if (input[p] === 0x3A) {
    if (input[p + 1] !== 0x3A) return FAILURE;
    p += 2;
    compress = ++pieceIndex;
  }
  while (p < input.length) {
    if (pieceIndex === 8) return FAILURE;
    if (input[p] === 0x3A) {
      if (compress !== null) return FAILURE;
      p++;
      compress = ++pieceIndex;
      continue;
    }
    let value = 0, length = 0;
    while (length < 4 && p < input.length && hexValue(input[p]) >= 0) {
      value = value * 16 + hexValue(input[p]);
      p++;
      length++;
    }
    if (input[p] === 0x2E) {
      if (length === 0) return FAILURE;
      p -= length;
      if (pieceIndex > 6) return FAILURE;
      let numbersSeen = 0;
      while (p < input.length) {
        let ipv4Piece = null;
        if (numbersSeen > 0) {
          if (input[p] === 0x2E && numbersSeen < 4) p++;
          else return FAILURE;
        }
        if (!isDigit(input[p])) return FAILURE;
        while (isDigit(input[p])) {
          const number = input[p] - 0x30;
          if (ipv4Piece === null) ipv4Piece = number;
          else if (ipv4Piece === 0) return FAILURE;
          else ipv4Piece = ipv4Piece * 10 + number;
          if (ipv4Piece > 255) return FAILURE;
          p++;
        }
        address[pieceIndex] = address[pieceIndex] * 0x100 + ipv4Piece;
        numbersSeen++;
        if (numbersSeen === 2 || numbersSeen === 4) pieceIndex++;
      }
      if (numbersSeen !== 4) return FAILURE;
      break;
    } else if (input[p] === 0x3A) {
      p++;
      if (p >= input.length) return FAILURE;
    } else if (p < input.length) {
      return FAILURE;
    }
    address[pieceIndex++] = value;
  }
  if (compress !== null) {
    let swaps = pieceIndex - compress;
    pieceIndex = 7;
    while (pieceIndex !== 0 && swaps > 0) {
      const t = address[pieceIndex];
      address[pieceIndex] = address[compress + swaps - 1];
      address[compress + swaps - 1] = t;
      pieceIndex--;
      swaps--;
    }
  } else if (pieceIndex !== 8) {
    return FAILURE;
  }
  return address;
}

function serializeIPv6(address) {
  // The first longest run of two or more zero pieces is compressed.
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && address[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j > i ? j : i + 1;
  }
  let out = '', ignore0 = false;
  for (let i = 0; i < 8; i++) {
    if (ignore0 && address[i] === 0) continue;
    ignore0 = false;
    if (best === i) {
      out += i === 0 ? '::' : ':';
      ignore0 = true;
      continue;
    }
    out += address[i].toString(16);
    if (i !== 7) out += ':';
  }
  return out;
}

// 4.1 URL representation.
const specialPorts = { 'ftp': 21, 'file': null, 'http': 80, 'https': 443, 'ws': 80, 'wss': 443 };
function isSpecialScheme(s) { return Object.prototype.hasOwnProperty.call(specialPorts, s); }
function defaultPort(s) { return isSpecialScheme(s) ? specialPorts[s] : null; }

function newRecord() {
  return { scheme: '', username: '', password: '', host: null, port: null, path: [],
           opaque: false, query: null, fragment: null };
}

function includesCredentials(url) { return url.username !== '' || url.password !== ''; }
function cannotHaveCredentials(url) {
  return url.host === null || url.host === '' || url.scheme === 'file';
}

function isAlpha(c) { return (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A); }
function isDigit(c) { return c >= 0x30 && c <= 0x39; }

function isDriveLetter(s) {
  if (s.length !== 2) return false;
  const b = s.charCodeAt(1);
  return isAlpha(s.charCodeAt(0)) && (b === 0x3A || b === 0x7C);
}
function isNormalizedDriveLetter(s) { return isDriveLetter(s) && s.charCodeAt(1) === 0x3A; }
// Whether input at p starts with a Windows drive letter: two code points, then the end or one
// of / \ ? #.
function startsWithDriveLetter(input, p) {
  if (!isDriveLetter(input.slice(p, p + 2))) return false;
  const c = input.charCodeAt(p + 2);
  return p + 2 === input.length || c === 0x2F || c === 0x5C || c === 0x3F || c === 0x23;
}

// Single-dot and double-dot segments: ".", "%2e", "..", ".%2e", "%2e." and "%2e%2e", any case.
function isSingleDot(s) { return s === '.' || (s.length === 3 && s.toLowerCase() === '%2e'); }
function isDoubleDot(s) {
  if (s === '..') return true;
  if (s.length !== 4 && s.length !== 6) return false;
  const l = s.toLowerCase();
  return l === '.%2e' || l === '%2e.' || l === '%2e%2e';
}

function shortenPath(url) {
  const path = url.path;
  if (url.scheme === 'file' && path.length === 1 && isNormalizedDriveLetter(path[0])) return;
  if (path.length) path.length--;
}

// The parser's states (4.4). The switch's case labels are these numbers written out (a table
// switch; named constants there would be compared one by one in the interpreter).
const SCHEME_START = 1, SCHEME = 2, NO_SCHEME = 3, SPECIAL_RELATIVE_OR_AUTHORITY = 4,
  PATH_OR_AUTHORITY = 5, RELATIVE = 6, RELATIVE_SLASH = 7, SPECIAL_AUTHORITY_SLASHES = 8,
  SPECIAL_AUTHORITY_IGNORE_SLASHES = 9, AUTHORITY = 10, HOST = 11, HOSTNAME = 12, PORT = 13,
  FILE = 14, FILE_SLASH = 15, FILE_HOST = 16, PATH_START = 17, PATH_STATE = 18, OPAQUE_PATH = 19,
  QUERY_STATE = 20, FRAGMENT_STATE = 21;
const S = { SCHEME_START, HOST, HOSTNAME, PORT, PATH_START, QUERY: QUERY_STATE, FRAGMENT: FRAGMENT_STATE };
const EOF = -1;

// Runs of characters a state only appends to its buffer, taken at once (urlcodec.cpp's kinds).
const AUTHORITY_RUN = 0, AUTHORITY_RUN_NS = 1, HOST_RUN = 2, HOST_RUN_NS = 3, PATH_RUN = 4,
  PATH_RUN_NS = 5, PATH_RUN_OVERRIDE = 6, PATH_RUN_OVERRIDE_NS = 7, FILE_HOST_RUN = 8,
  OPAQUE_RUN = 9, SCHEME_RUN = 10, DIGITS_RUN = 11;

function take(run, input, p) { return natives.urlRun(input, p, run); }

// 4.4 the basic URL parser; returns the record, or FAILURE. stateOverride is given by setters.
// One case per state of the standard, in its order, so the function is as long as the list.
function basicParse(input, base, url, stateOverride) {
  // Without a url (not a setter), leading and trailing C0 controls and spaces go; tabs and
  // newlines always.
  input = natives.urlInput(input, url ? 2 : 3);
  if (!url) url = newRecord();
  const len = input.length;
  let special = isSpecialScheme(url.scheme);
  let state = stateOverride || SCHEME_START;
  let buffer = '', atSignSeen = false, insideBrackets = false, passwordTokenSeen = false;
  for (let p = 0; ; p++) {
    const c = p < len ? input.charCodeAt(p) : EOF;
    switch (state) {
    case 1: // SCHEME_START
      if (isAlpha(c)) {
        buffer = take(SCHEME_RUN, input, p).toLowerCase();
        p += buffer.length - 1;
        state = SCHEME;
      } else if (!stateOverride) {
        state = NO_SCHEME;
        p--;
      } else {
        return FAILURE;
      }
      break;
    case 2: // SCHEME
      if (c === 0x3A) {
        if (stateOverride) {
          if (special !== isSpecialScheme(buffer)) return url;
          if ((includesCredentials(url) || url.port !== null) && buffer === 'file') return url;
          if (url.scheme === 'file' && url.host === '') return url;
        }
        url.scheme = buffer;
        special = isSpecialScheme(buffer);
        if (stateOverride) {
          if (url.port === defaultPort(url.scheme)) url.port = null;
          return url;
        }
        buffer = '';
        if (url.scheme === 'file') {
          state = FILE;
        } else if (special && base && base.scheme === url.scheme) {
          state = SPECIAL_RELATIVE_OR_AUTHORITY;
        } else if (special) {
          state = SPECIAL_AUTHORITY_SLASHES;
        } else if (input.charCodeAt(p + 1) === 0x2F) {
          state = PATH_OR_AUTHORITY;
          p++;
        } else {
          url.opaque = true;
          url.path = '';
          state = OPAQUE_PATH;
        }
      } else if (!stateOverride) {
        buffer = '';
        state = NO_SCHEME;
        p = -1;
      } else {
        return FAILURE;
      }
      break;
    case 3: // NO_SCHEME
      if (!base || (base.opaque && c !== 0x23)) return FAILURE;
      if (base.opaque && c === 0x23) {
        url.scheme = base.scheme;
        special = isSpecialScheme(url.scheme);
        url.path = base.path;
        url.opaque = true;
        url.query = base.query;
        url.fragment = '';
        state = FRAGMENT_STATE;
      } else {
        state = base.scheme !== 'file' ? RELATIVE : FILE;
        p--;
      }
      break;
    case 4: // SPECIAL_RELATIVE_OR_AUTHORITY
      if (c === 0x2F && input.charCodeAt(p + 1) === 0x2F) {
        state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
        p++;
      } else {
        state = RELATIVE;
        p--;
      }
      break;
    case 5: // PATH_OR_AUTHORITY
      if (c === 0x2F) {
        state = AUTHORITY;
      } else {
        state = PATH_STATE;
        p--;
      }
      break;
    case 6: // RELATIVE
      url.scheme = base.scheme;
      special = isSpecialScheme(url.scheme);
      if (c === 0x2F || (special && c === 0x5C)) {
        state = RELATIVE_SLASH;
      } else {
        url.username = base.username;
        url.password = base.password;
        url.host = base.host;
        url.port = base.port;
        url.path = base.path.slice();
        url.query = base.query;
        if (c === 0x3F) {
          url.query = '';
          state = QUERY_STATE;
        } else if (c === 0x23) {
          url.fragment = '';
          state = FRAGMENT_STATE;
        } else if (c !== EOF) {
          url.query = null;
          shortenPath(url);
          state = PATH_STATE;
          p--;
        }
      }
      break;
    case 7: // RELATIVE_SLASH
      if (special && (c === 0x2F || c === 0x5C)) {
        state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
      } else if (c === 0x2F) {
        state = AUTHORITY;
      } else {
        url.username = base.username;
        url.password = base.password;
        url.host = base.host;
        url.port = base.port;
        state = PATH_STATE;
        p--;
      }
      break;
    case 8: // SPECIAL_AUTHORITY_SLASHES
      state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
      if (c === 0x2F && input.charCodeAt(p + 1) === 0x2F) p++;
      else p--;
      break;
    case 9: // SPECIAL_AUTHORITY_IGNORE_SLASHES
      if (c !== 0x2F && c !== 0x5C) {
        state = AUTHORITY;
        p--;
      }
      break;
    case 10: // AUTHORITY
      if (c === 0x40) {
        if (atSignSeen) buffer = '%40' + buffer;
        atSignSeen = true;
        // The first ":" of all the userinfo seen separates the username from the password.
        const colon = passwordTokenSeen ? -1 : buffer.indexOf(':');
        if (passwordTokenSeen) {
          url.password += percentEncodeString(buffer, USERINFO, false);
        } else if (colon < 0) {
          url.username += percentEncodeString(buffer, USERINFO, false);
        } else {
          passwordTokenSeen = true;
          url.username += percentEncodeString(buffer.slice(0, colon), USERINFO, false);
          url.password += percentEncodeString(buffer.slice(colon + 1), USERINFO, false);
        }
        buffer = '';
      } else if (c === EOF || c === 0x2F || c === 0x3F || c === 0x23 || (special && c === 0x5C)) {
        if (atSignSeen && buffer === '') return FAILURE;
        p -= buffer.length + 1;
        buffer = '';
        state = HOST;
      } else {
        const run = take(special ? AUTHORITY_RUN : AUTHORITY_RUN_NS, input, p);
        buffer += run;
        p += run.length - 1;
      }
      break;
    case 11: // HOST
    case 12: // HOSTNAME
      if (stateOverride && url.scheme === 'file') {
        p--;
        state = FILE_HOST;
      } else if (c === 0x3A && !insideBrackets) {
        if (buffer === '') return FAILURE;
        if (stateOverride === HOSTNAME) return FAILURE;
        const host = parseHost(buffer, !special);
        if (host === FAILURE) return FAILURE;
        url.host = host;
        buffer = '';
        state = PORT;
      } else if (c === EOF || c === 0x2F || c === 0x3F || c === 0x23 || (special && c === 0x5C)) {
        p--;
        if (special && buffer === '') return FAILURE;
        if (stateOverride && buffer === '' && (includesCredentials(url) || url.port !== null))
          return FAILURE;
        const host = parseHost(buffer, !special);
        if (host === FAILURE) return FAILURE;
        url.host = host;
        buffer = '';
        state = PATH_START;
        if (stateOverride) return url;
      } else if (c === 0x5B || c === 0x5D || c === 0x3A) {
        insideBrackets = c === 0x5B ? true : c === 0x5D ? false : insideBrackets;
        buffer += String.fromCharCode(c);
      } else {
        const run = take(special ? HOST_RUN : HOST_RUN_NS, input, p);
        buffer += run;
        p += run.length - 1;
      }
      break;
    case 13: // PORT
      if (isDigit(c)) {
        const run = take(DIGITS_RUN, input, p);
        buffer += run;
        p += run.length - 1;
      } else if (c === EOF || c === 0x2F || c === 0x3F || c === 0x23 || (special && c === 0x5C) ||
                 stateOverride) {
        if (buffer !== '') {
          const port = parseInt(buffer, 10);
          if (port > 65535) return FAILURE;
          url.port = port === defaultPort(url.scheme) ? null : port;
          buffer = '';
          if (stateOverride) return url;
        }
        if (stateOverride) return FAILURE;
        state = PATH_START;
        p--;
      } else {
        return FAILURE;
      }
      break;
    case 14: // FILE
      url.scheme = 'file';
      special = true;
      url.host = '';
      if (c === 0x2F || c === 0x5C) {
        state = FILE_SLASH;
      } else if (base && base.scheme === 'file') {
        url.host = base.host;
        url.path = base.path.slice();
        url.query = base.query;
        if (c === 0x3F) {
          url.query = '';
          state = QUERY_STATE;
        } else if (c === 0x23) {
          url.fragment = '';
          state = FRAGMENT_STATE;
        } else if (c !== EOF) {
          url.query = null;
          if (!startsWithDriveLetter(input, p)) shortenPath(url);
          else url.path = [];
          state = PATH_STATE;
          p--;
        }
      } else {
        state = PATH_STATE;
        p--;
      }
      break;
    case 15: // FILE_SLASH
      if (c === 0x2F || c === 0x5C) {
        state = FILE_HOST;
      } else {
        if (base && base.scheme === 'file') {
          url.host = base.host;
          if (!startsWithDriveLetter(input, p) && base.path.length &&
              isNormalizedDriveLetter(base.path[0]))
            url.path[url.path.length] = base.path[0];
        }
        state = PATH_STATE;
        p--;
      }
      break;
    case 16: // FILE_HOST
      if (c === EOF || c === 0x2F || c === 0x5C || c === 0x3F || c === 0x23) {
        p--;
        if (!stateOverride && isDriveLetter(buffer)) {
          state = PATH_STATE;
        } else if (buffer === '') {
          url.host = '';
          if (stateOverride) return url;
          state = PATH_START;
        } else {
          let host = parseHost(buffer, !special);
          if (host === FAILURE) return FAILURE;
          if (host === 'localhost') host = '';
          url.host = host;
          if (stateOverride) return url;
          buffer = '';
          state = PATH_START;
        }
      } else {
        const run = take(FILE_HOST_RUN, input, p);
        buffer += run;
        p += run.length - 1;
      }
      break;
    case 17: // PATH_START
      if (special) {
        state = PATH_STATE;
        if (c !== 0x2F && c !== 0x5C) p--;
      } else if (!stateOverride && c === 0x3F) {
        url.query = '';
        state = QUERY_STATE;
      } else if (!stateOverride && c === 0x23) {
        url.fragment = '';
        state = FRAGMENT_STATE;
      } else if (c !== EOF) {
        state = PATH_STATE;
        if (c !== 0x2F) p--;
      } else if (stateOverride && url.host === null) {
        url.path[url.path.length] = '';
      }
      break;
    case 18: // PATH_STATE
      if (c === EOF || c === 0x2F || (special && c === 0x5C) ||
          (!stateOverride && (c === 0x3F || c === 0x23))) {
        // The segment was taken raw: ".", "%2e" and drive letters are the same encoded.
        const slash = c === 0x2F || (special && c === 0x5C);
        if (isDoubleDot(buffer)) {
          shortenPath(url);
          if (!slash) url.path[url.path.length] = '';
        } else if (isSingleDot(buffer)) {
          if (!slash) url.path[url.path.length] = '';
        } else {
          if (url.scheme === 'file' && url.path.length === 0 && isDriveLetter(buffer))
            buffer = buffer.slice(0, 1) + ':';
          url.path[url.path.length] = percentEncodeString(buffer, PATH, false);
        }
        buffer = '';
        if (c === 0x3F) {
          url.query = '';
          state = QUERY_STATE;
        } else if (c === 0x23) {
          url.fragment = '';
          state = FRAGMENT_STATE;
        }
      } else {
        const run = take(stateOverride ? (special ? PATH_RUN_OVERRIDE : PATH_RUN_OVERRIDE_NS)
                                       : (special ? PATH_RUN : PATH_RUN_NS), input, p);
        buffer += run || String.fromCharCode(c);
        p += (run.length || 1) - 1;
      }
      break;
    case 19: // OPAQUE_PATH
      if (c === 0x3F) {
        url.query = '';
        state = QUERY_STATE;
      } else if (c === 0x23) {
        url.fragment = '';
        state = FRAGMENT_STATE;
      } else if (c !== EOF) {
        const run = take(OPAQUE_RUN, input, p);
        url.path += percentEncodeString(run, C0_CONTROL, false);
        p += run.length - 1;
      }
      break;
    case 20: { // QUERY_STATE
      // Up to the fragment (a setter's value is all query) or the end, encoded at once.
      const hash = stateOverride ? -1 : input.indexOf('#', p);
      const end = hash < 0 ? len : hash;
      url.query += percentEncodeString(input.slice(p, end), special ? SPECIAL_QUERY : QUERY, false);
      p = end;
      if (hash >= 0) {
        url.fragment = '';
        state = FRAGMENT_STATE;
      }
      break;
    }
    case 21: // FRAGMENT_STATE
      url.fragment += percentEncodeString(input.slice(p), FRAGMENT, false);
      p = len;
      break;
    }
    if (p >= len) break; // the pointer is at the end, not moved back to look again
  }
  return url;
}

// 4.5 URL serializing.
function serializePath(url) {
  if (url.opaque) return url.path;
  let out = '';
  for (let i = 0; i < url.path.length; i++) out += '/' + url.path[i];
  return out;
}

function serializeURL(url, excludeFragment) {
  let out = url.scheme + ':';
  if (url.host !== null) {
    out += '//';
    if (includesCredentials(url)) {
      out += url.username;
      if (url.password !== '') out += ':' + url.password;
      out += '@';
    }
    out += url.host;
    if (url.port !== null) out += ':' + url.port;
  } else if (!url.opaque && url.path.length > 1 && url.path[0] === '') {
    out += '/.';
  }
  out += serializePath(url);
  if (url.query !== null) out += '?' + url.query;
  if (!excludeFragment && url.fragment !== null) out += '#' + url.fragment;
  return out;
}

// 4.7 origin.
function serializeOrigin(url) {
  switch (url.scheme) {
  case 'blob': {
    const inner = basicParse(serializePath(url), null);
    return inner !== FAILURE && (inner.scheme === 'http' || inner.scheme === 'https')
      ? serializeOrigin(inner) : 'null';
  }
  case 'ftp': case 'http': case 'https': case 'ws': case 'wss':
    return url.scheme + '://' + url.host + (url.port !== null ? ':' + url.port : '');
  default:
    return 'null';
  }
}

// A URL with an opaque path, no fragment and no query loses its path's trailing spaces.
function stripTrailingSpaces(url) {
  if (!url.opaque || url.fragment !== null || url.query !== null) return;
  url.path = url.path.replace(/ +$/, '');
}

// 5.1 application/x-www-form-urlencoded.
function parseForm(input) {
  const out = [];
  const seqs = input.split('&');
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i];
    if (seq === '') continue;
    const eq = seq.indexOf('=');
    let name = eq < 0 ? seq : seq.slice(0, eq);
    let value = eq < 0 ? '' : seq.slice(eq + 1);
    name = name.replace(/\+/g, ' ');
    value = value.replace(/\+/g, ' ');
    out[out.length] = [decodeFormPart(name), decodeFormPart(value)];
  }
  return out;
}

function decodeFormPart(s) { return s.indexOf('%') < 0 ? s : percentDecodeString(s); }

function serializeForm(list) {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    if (i) out += '&';
    out += percentEncodeString(list[i][0], FORM, true) + '=' +
      percentEncodeString(list[i][1], FORM, true);
  }
  return out;
}

return {
  FAILURE, S, usv, basicParse, serializeURL, serializePath, serializeOrigin, stripTrailingSpaces,
  parseForm, serializeForm, percentEncodeString, USERINFO, cannotHaveCredentials,
};
})
