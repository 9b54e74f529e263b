/**
 * Why a request body was not read whole, in words safe to show: over a cap (413), cut off by the client
 * (400), stalled (408), or no room to hold it now (503). Each server answers it in its own shape.
 */
export class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 408 | 413 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'BodyRefused';
  }
}
