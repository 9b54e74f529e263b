'use strict';
/**
 * The spec's safety rules for a local engine server, so that a web page in the user's browser cannot
 * drive it: a Host other than 127.0.0.1 or localhost on this port (DNS rebinding) and any request a page
 * sends with an Origin are refused, bodies are capped before they are parsed, and, when
 * SYSTEM1_SYSTEMONE_API_KEY is set, a bearer token is required.
 */
const crypto = require('node:crypto');

class HttpError extends Error {
  constructor(status, type, message, headers = {}) {
    super(message);
    this.status = status;
    this.type = type;
    this.headers = headers;
  }
}

/** A header value as shown in an error: JSON-quoted and cut, never raw. */
function shown(value) {
  const text = String(value);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

function checkHost(request, port) {
  const host = (request.headers.host ?? '').toLowerCase();
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`, ...(port === 80 ? ['127.0.0.1', 'localhost'] : [])];
  if (!allowed.includes(host)) {
    throw new HttpError(
      403,
      'permission_error',
      `the Host ${request.headers.host === undefined ? '(none)' : shown(request.headers.host)} is refused: this server answers only to 127.0.0.1:${port} or localhost:${port}`,
    );
  }
  // Browsers send Origin with every cross-origin POST and fetch(); the gateway and curl send none. A page may
  // not read the answer anyway (no CORS), but it could still keep the model busy.
  if (request.headers.origin !== undefined) {
    throw new HttpError(
      403,
      'permission_error',
      `a request from a web page (Origin ${shown(request.headers.origin)}) is refused`,
    );
  }
}

function digest(text) {
  return crypto.createHash('sha256').update(text, 'utf8').digest();
}

/** Compares the bearer token in constant time (over digests, so the lengths do not show either). */
function checkToken(request, key) {
  if (!key) return;
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
  if (!match || !crypto.timingSafeEqual(digest(match[1].trim()), digest(key))) {
    throw new HttpError(
      401,
      'authentication_error',
      'Invalid API Key: send Authorization: Bearer with the key in SYSTEM1_SYSTEMONE_API_KEY',
    );
  }
}

/**
 * The body as text, at most `maxBytes`; 413 as soon as it is known to be larger. `beforeReading` runs once
 * the declared length is known to fit (to send 100 Continue to a client waiting for it).
 */
function readBody(request, maxBytes, beforeReading = () => undefined) {
  const tooLarge = (size) =>
    new HttpError(413, 'request_too_large_error', `the body is ${size} bytes, over the ${maxBytes}-byte (1 MiB) limit`);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge(declared));
  beforeReading();
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.removeAllListeners('data');
        request.pause();
        reject(tooLarge(`more than ${maxBytes}`));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'invalid_request_error', `the body is not JSON: ${error.message}`);
  }
}

module.exports = { HttpError, checkHost, checkToken, readBody, parseJson };
