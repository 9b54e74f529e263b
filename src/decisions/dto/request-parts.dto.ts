import { IsIn, Matches, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema/build/decorators';
import { MODEL_REF_MAX_CHARS } from '../../common/limits';
import { Optional } from '../../common/optional.decorator';
import { IMAGE_MEDIA_TYPES } from '../questions/question.types';

/** Images shared by every question of a call (the System One extension's limit). */
export const MAX_IMAGES = 4;
const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

@JSONSchema({ title: 'image', description: 'An image every question of the request may look at.' })
export class ImageDto {
  @IsIn(IMAGE_MEDIA_TYPES, { message: `must be one of ${IMAGE_MEDIA_TYPES.join(', ')}` })
  mediaType!: string;

  @Matches(PADDED_BASE64, { message: 'must be padded standard Base64 without a data: prefix' })
  @Matches(/./, { message: 'must be padded standard Base64 without a data: prefix' })
  @JSONSchema({ type: 'string', minLength: 4, description: 'Padded standard Base64, no data: prefix.' })
  data!: string;
}

@JSONSchema({ title: 'model reference', description: 'An engine and, where it serves several, the model to ask.' })
export class ModelRefDto {
  @MaxLength(MODEL_REF_MAX_CHARS, { message: `must be at most ${MODEL_REF_MAX_CHARS} characters` })
  @Matches(/\S/, { message: 'must name a provider' })
  provider!: string;

  @Optional()
  @MaxLength(MODEL_REF_MAX_CHARS, { message: `must be at most ${MODEL_REF_MAX_CHARS} characters` })
  @Matches(/\S/, { message: 'must be a non-empty model id when given' })
  model?: string;
}
