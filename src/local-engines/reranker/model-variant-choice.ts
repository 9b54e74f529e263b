import { readFileSync } from 'node:fs';
import type { ModelVariant } from '../hub/pull-manifest';

/** What `engine pull` knows of the CPU: the platform, the architecture and /proc/cpuinfo's text (Linux only). */
export interface CpuFacts {
  platform: NodeJS.Platform;
  arch: string;
  /** undefined where there is none to read (macOS, Windows) or it could not be read. */
  cpuinfo: string | undefined;
}

export interface VariantChoice {
  variant: ModelVariant;
  /** Why, in words for the user. */
  why: string;
  /** The user chose it with a flag, so a repo without it is an error rather than a reason to take the other. */
  forced: boolean;
}

/** The flags of one line of /proc/cpuinfo (`flags` on x86-64, `Features` on arm64), as a set of words. */
function cpuFlags(cpuinfo: string, label: string): Set<string> | undefined {
  const line = cpuinfo.split('\n').find((text) => new RegExp(`^${label}\\s*:`).test(text));
  return line === undefined
    ? undefined
    : new Set(
        line
          .slice(line.indexOf(':') + 1)
          .trim()
          .split(/\s+/),
      );
}

/**
 * Whether the CPU has the integer dot-product instructions ONNX Runtime's int8 matrix kernels use (MLAS):
 * AVX-VNNI or AVX512-VNNI on x86-64, the Armv8.2 dot product (`asimddp`) on arm64, which every Apple silicon
 * Mac has. Without them int8 runs through wider multiplies and gains much less over float32. `known: false`
 * when this cannot be told (Windows, Intel macOS, no readable /proc/cpuinfo).
 */
function int8DotProduct({ platform, arch, cpuinfo }: CpuFacts): { known: boolean; has: boolean; what: string } {
  if (platform === 'darwin' && arch === 'arm64')
    return { known: true, has: true, what: 'Apple silicon, which always has the Arm dot-product instructions' };
  if (platform !== 'linux' || cpuinfo === undefined)
    return {
      known: false,
      has: false,
      what: `no /proc/cpuinfo to read on ${platform === 'linux' ? 'this machine' : `${platform} ${arch}`}`,
    };
  if (arch === 'x64') {
    const flags = cpuFlags(cpuinfo, 'flags');
    if (!flags) return { known: false, has: false, what: '/proc/cpuinfo lists no flags' };
    const found = ['avx512_vnni', 'avx_vnni'].filter((flag) => flags.has(flag));
    return found.length > 0
      ? { known: true, has: true, what: `this CPU has ${found.join(' and ')} (VNNI, integer dot products)` }
      : { known: true, has: false, what: 'this CPU has neither avx512_vnni nor avx_vnni (VNNI, integer dot products)' };
  }
  if (arch === 'arm64') {
    const features = cpuFlags(cpuinfo, 'Features');
    if (!features) return { known: false, has: false, what: '/proc/cpuinfo lists no Features' };
    return features.has('asimddp')
      ? { known: true, has: true, what: 'this CPU has asimddp (the Arm dot-product instructions)' }
      : { known: true, has: false, what: 'this CPU lacks asimddp (the Arm dot-product instructions)' };
  }
  return { known: false, has: false, what: `int8 kernels on ${arch} are not known here` };
}

/**
 * float32 or int8 (`quantized`: onnx/model_quantized.onnx) for this CPU: int8 where it has integer dot-product
 * instructions, where the issue-43 bench ran int8 3.3 times faster at 20 candidates; else float32, also when
 * the CPU cannot be told, said so. `quantized` and `float32` (the flags) force either.
 */
export function chooseVariant(flags: { quantized?: boolean; float32?: boolean }, cpu: CpuFacts): VariantChoice {
  if (flags.quantized) return { variant: 'quantized', why: 'int8, as --quantized asks', forced: true };
  if (flags.float32) return { variant: 'float32', why: 'float32, as --float32 asks', forced: true };
  const { known, has, what } = int8DotProduct(cpu);
  if (has) return { variant: 'quantized', why: `int8: ${what}; --float32 pulls float32 instead`, forced: false };
  return {
    variant: 'float32',
    why: known
      ? `float32: ${what}, so int8 would gain less; --quantized pulls int8 anyway`
      : `float32: whether this CPU has integer dot-product instructions is unknown (${what}); --quantized pulls int8`,
    forced: false,
  };
}

/** This machine's facts. */
export function thisCpu(): CpuFacts {
  let cpuinfo: string | undefined;
  if (process.platform === 'linux') {
    try {
      cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      cpuinfo = undefined;
    }
  }
  return { platform: process.platform, arch: process.arch, cpuinfo };
}
