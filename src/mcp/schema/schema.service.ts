import { Injectable } from '@nestjs/common';
import { buildSchemas } from './schema-export';

export type JsonSchemas = ReturnType<typeof buildSchemas>;

/** The published request and response schemas, built from the DTOs once, on first use. */
@Injectable()
export class SchemaService {
  private schemas?: JsonSchemas;

  get(): JsonSchemas {
    return (this.schemas ??= buildSchemas());
  }
}
