/**
 * The providers built for models callers choose (system1_ask's and the library's `model`): kept, so a model
 * asked again is not configured again, but bounded, so distinct names cannot fill the heap, and a model that
 * cannot be built is never kept.
 */
import type { TestingModule } from '@nestjs/testing';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ProviderRegistry } from '../../../src/decisions/registry/provider-registry.service';
import { gatewayApp } from '../../helpers/gateway-app';

// A full collection before each reading, so the heap counts what is kept, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let gateway: TestingModule;
let registry: ProviderRegistry;
beforeAll(async () => {
  gateway = await gatewayApp({
    toml: '[gateway]\nprovider = "ollama"\n[providers.ollama]\nendpoint = "http://127.0.0.1:9"\n[providers.laya]\nendpoint = "http://127.0.0.1:9"\n',
  });
  registry = gateway.get(ProviderRegistry);
});
afterAll(() => gateway.close());

describe('providers built for chosen models', () => {
  it('keeps the provider for a model asked again', () => {
    const first = registry.instanceWithModel('ollama', 'qwen2.5:7b');
    expect(first).not.toBeNull();
    expect(registry.instanceWithModel('ollama', 'qwen2.5:7b')).toBe(first);
  });

  it('forgets the least recently used once many distinct models were asked, however long their names', () => {
    const first = registry.instanceWithModel('ollama', 'model-0');
    expect(first).not.toBeNull();
    for (let i = 1; i <= 2_000; i++)
      expect(registry.instanceWithModel('ollama', `model-${i}-${'x'.repeat(200)}`)).not.toBeNull();
    const again = registry.instanceWithModel('ollama', 'model-0');
    expect(again).not.toBeNull();
    expect(again).not.toBe(first);
  });

  // Distinct 256-character names (the longest a call may send): built (ollama takes any model) and refused
  // (laya knows a few checkpoints; its refusal names the model).
  it.each([
    ['ollama', 'built'],
    ['laya', 'refused'],
  ])('keeps the heap flat over 20,000 distinct 256-character models (%s: %s)', (provider, outcome) => {
    const name = (i: number) => `${i}-${'m'.repeat(256)}`.slice(0, 256);
    const measure = () => {
      collectGarbage();
      return process.memoryUsage().heapUsed;
    };
    for (let i = 0; i < 2_000; i++) registry.instanceWithModel(provider, `warm-${name(i)}`.slice(0, 256));
    const before = measure();
    for (let i = 0; i < 20_000; i++)
      expect(registry.instanceWithModel(provider, name(i)) === null).toBe(outcome === 'refused');
    // Kept, 20,000 providers (or reasons) and their keys hold well over 20 MB; bounded, what is kept is under 1 MB.
    expect(measure() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('says why a provider that runs one model cannot run another, naming neither the file nor the model', () => {
    expect(registry.instanceWithModel('mock', 'no-such-checkpoint')).toBeNull();
    const reason = registry.unusable('mock', 'no-such-checkpoint');
    expect(reason).toBe('mock runs one model only (it has no model setting)');
  });

  it('names keys but no config file for a provider whose settings are broken', async () => {
    const broken = await gatewayApp({ toml: '[gateway]\nprovider = "mock"\n[providers.laya]\nendpoint = "ftp://x"\n' });
    try {
      const reason = broken.get(ProviderRegistry).unusable('laya', 'typed-decisions');
      expect(reason).toMatch(/^providers\.laya\.endpoint /);
      expect(reason).not.toContain('/test/config.toml');
    } finally {
      await broken.close();
    }
  });
});
