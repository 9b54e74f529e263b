import { ValidateIf } from 'class-validator';

/**
 * Optional means "may be left out", not "may be null": class-validator's IsOptional also lets null through,
 * which the published schema (and so every client validating against it) would reject.
 */
export const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
