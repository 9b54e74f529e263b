import {
  getMetadataStorage,
  type MetadataStorage,
  type ValidationArguments,
  type ValidationError,
  type ValidatorConstraintInterface,
  type ValidatorOptions,
  ValidationTypes,
  validateSync,
} from 'class-validator';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** One decorator's check of one property, with the validator class-validator would run for it. */
interface Constraint {
  metadata: ValidationMetadata;
  validator: ValidatorConstraintInterface;
}

interface PropertyChecks {
  name: string;
  /** ValidateIf conditions (the gateway's @Optional): when one is false, nothing of the property is checked. */
  conditions: ((object: object, value: unknown) => boolean)[];
  constraints: Constraint[];
}

/**
 * Whether a DTO instance passes every check of its class (`undeclared`: whether keys the class does not
 * declare are let through, as they are without `whitelist`); null for a class it cannot answer for.
 */
type Verdict = ((instance: Record<string, unknown>, undeclared: boolean) => boolean) | null;

const verdicts = new WeakMap<object, Verdict>();

/** What class-validator may do that a verdict is made of; a class using anything else is left to it. */
const UNDERSTOOD = new Set<string>([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.WHITELIST,
]);

type Options = Pick<ValidatorOptions, 'whitelist' | 'forbidNonWhitelisted' | 'forbidUnknownValues'>;

/**
 * validateSync's errors for a DTO instance, and none, without asking class-validator, when every check of
 * the instance's class passes. class-validator looks a class's metadata up again at every call (scanning
 * every registered class for inheritance), builds an error object for every property and then drops the
 * empty ones: on a busy stdio server that was a tenth of the CPU time per decision and a sixth of what a
 * decision allocates (`npm run bench -- decomposition`, a heap profile). Here each class's metadata is read
 * once, and a call runs only the conditions and validators class-validator would run, as it runs them. A
 * validator answering anything but `true`, a key the class does not declare under `whitelist`, or a class
 * with checks of another kind (nested, async, @IsDefined, groups) all go to validateSync, whose messages
 * callers show. Only options that cannot make class-validator stricter than the verdict are taken.
 */
export function dtoErrors(instance: object, options: Options = {}): ValidationError[] {
  return passesEveryCheck(instance, options) ? [] : validateSync(instance, options);
}

/** True when validateSync would find nothing wrong (false also when only class-validator can tell). */
export function passesEveryCheck(instance: object, { whitelist = false }: Options = {}): boolean {
  const verdict = verdictFor(instance.constructor);
  return verdict !== null && verdict(instance as Record<string, unknown>, !whitelist);
}

function verdictFor(target: object): Verdict {
  let verdict = verdicts.get(target);
  if (verdict === undefined) {
    verdict = compile(target as new () => object);
    verdicts.set(target, verdict);
  }
  return verdict;
}

function compile(target: new () => object): Verdict {
  const storage = getMetadataStorage();
  // The metadata validateSync reads for a call without groups (`always` and `strictGroups` off).
  const metadatas = storage.getTargetValidationMetadatas(target, undefined as unknown as string, false, false);
  // No metadata at all is an error of its own with forbidUnknownValues: class-validator's to report.
  if (metadatas.length === 0) return null;
  if (metadatas.some((metadata) => !UNDERSTOOD.has(metadata.type) || (metadata.groups?.length ?? 0) > 0)) return null;
  const properties: PropertyChecks[] = [];
  for (const [name, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
    const constraints: Constraint[] = [];
    for (const metadata of list) {
      if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION) continue;
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        if (constraint.async) return null;
        // Resolved once: class-validator finds the same instance in its container at every call.
        constraints.push({ metadata, validator: constraint.instance });
      }
    }
    const conditions = list
      .filter((metadata) => metadata.type === ValidationTypes.CONDITIONAL_VALIDATION)
      .map((metadata) => metadata.constraints[0] as PropertyChecks['conditions'][number]);
    properties.push({ name, conditions, constraints });
  }
  const declared = new Set(properties.map((property) => property.name));
  return (instance, undeclared) => {
    // Under whitelist an undeclared key is refused or stripped: class-validator's to do either.
    if (!undeclared) for (const key of Object.keys(instance)) if (!declared.has(key)) return false;
    // One arguments object for every validator of the instance, each run in turn and synchronously
    // (class-validator builds one per validator: on a busy server those were most of what the check allocated).
    const args: ValidationArguments = {
      targetName: instance.constructor.name,
      property: '',
      object: instance,
      value: undefined,
      constraints: [],
    };
    for (const property of properties) if (!passes(instance, property, args)) return false;
    return true;
  };
}

/** One property's checks, run as ValidationExecutor runs them (performValidations, customValidations). */
function passes(
  instance: Record<string, unknown>,
  { name, conditions, constraints }: PropertyChecks,
  args: ValidationArguments,
): boolean {
  const value = instance[name];
  for (const condition of conditions) if (!condition(instance, value)) return true;
  args.value = value;
  for (const { metadata, validator } of constraints) {
    if (metadata.validateIf && !metadata.validateIf(instance, value)) continue;
    args.property = metadata.propertyName;
    args.constraints = metadata.constraints;
    const eachOf = metadata.each ? itemsOf(value) : undefined;
    if (eachOf === undefined) {
      if (validator.validate(value, args) !== true) return false;
    } else for (const item of eachOf) if (validator.validate(item, args) !== true) return false;
  }
  return true;
}

/** The items `each: true` checks one by one (class-validator's convertToArray); undefined for a single value. */
function itemsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value as unknown[];
  if (value instanceof Set) return [...(value as Set<unknown>)];
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).values()];
  return undefined;
}
