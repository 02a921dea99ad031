/**
 * The OpenAPI document (lib/http/openapi.ts), served by a local service with sys, every engine
 * and the catalog: valid by a real OpenAPI validator, and saying what each operation answers.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../lib/engine-list';
import { call, createTestService } from '../helpers/service';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
let doc: Doc;

beforeAll(async () => {
  const svc = await createTestService({ engines: ENGINES });
  const r = await call(svc.app, 'GET', '/v1/sys/openapi', { token: svc.root });
  expect(r.status).toBe(200);
  doc = r.json as Doc;
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists paths without /v1, which is its server, so that the fuzzer and clients prefix it', () => {
    expect(doc.servers).toEqual([{ url: '/v1' }]);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(100);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1'))).toEqual([]);
  });

  it('declares the token headers as security schemes; unauthenticated operations need none', () => {
    expect(doc.components.securitySchemes.SvcToken).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Svc-Token' }));
    expect(doc.components.securitySchemes.VaultToken).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Vault-Token' }),
    );
    expect(doc.security).toEqual([{ SvcToken: [] }, { VaultToken: [] }]);
    expect(doc.paths['/sys/health'].get.security).toEqual([]);
    expect(doc.paths['/pki/ca/pem'].get.security).toEqual([]);
    expect(doc.paths['/pki/issue/{name}'].post.security).toBeUndefined();
    // sys/wrapping/unwrap checks its token in the handler: it needs one.
    expect(doc.paths['/sys/wrapping/unwrap'].post.security).toBeUndefined();
  });

  it('answers the envelope with data as an object, a list with data.keys, and 204 where nothing is answered', () => {
    const envelope = doc.components.schemas.Envelope;
    expect(envelope.properties.data).toMatchObject({ type: 'object', nullable: true });
    expect(envelope.required).toContain('request_id');
    const issue = doc.paths['/pki/issue/{name}'].post.responses;
    expect(issue['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Envelope' });
    expect(issue['204']).toBeDefined();
    const roles = doc.paths['/pki/roles/'] ?? doc.paths['/pki/roles'];
    expect(roles.get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ListEnvelope' });
  });

  it('answers errors as {"errors": [...]} with 400/403/404/405, and 413 where a body is taken', () => {
    expect(doc.components.schemas.Errors).toMatchObject({
      properties: { errors: { type: 'array', items: { type: 'string' } } },
      required: ['errors'],
    });
    const post = doc.paths['/pki/issue/{name}'].post.responses;
    for (const code of ['400', '403', '404', '405', '413']) expect(post[code]).toEqual({ $ref: `#/components/responses/Error${code}` });
    expect(doc.components.responses.Error400.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Errors' });
    expect(doc.paths['/sys/health'].get.responses['413']).toBeUndefined();
  });

  it('gives the PKI raw paths their content types', () => {
    expect(Object.keys(doc.paths['/pki/ca/pem'].get.responses['200'].content)).toEqual(['application/pem-certificate-chain']);
    expect(doc.paths['/pki/ca'].get.responses['200'].content['application/pkix-cert'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(Object.keys(doc.paths['/pki/cert/{serial}/raw'].get.responses['200'].content)).toEqual([
      'application/pkix-cert',
      'application/pkix-crl',
    ]);
    expect(Object.keys(doc.paths['/pki/crl/pem'].get.responses['200'].content)).toEqual(['application/x-pem-file']);
  });

  it('describes the catalog KV write as a raw body with query parameters, and catalog errors as text', () => {
    const kv = doc.paths['/kv/{key}'];
    expect(kv.post).toBeUndefined();
    expect(Object.keys(kv.put.requestBody.content)).toEqual(['application/octet-stream']);
    const names = kv.put.parameters.map((p: Doc) => `${p.in}:${p.name}`);
    expect(names).toEqual(expect.arrayContaining(['path:key', 'query:flags', 'query:cas']));
    expect(kv.delete.parameters.map((p: Doc) => p.name)).toEqual(expect.arrayContaining(['key', 'recurse', 'cas']));
    expect(kv.put.responses['400']).toEqual({ $ref: '#/components/responses/CatalogError400' });
    expect(kv.put.security).toEqual([{ CatalogToken: [] }, { ConsulToken: [] }, {}]);
    // Other catalog writes take JSON.
    expect(doc.paths['/catalog/register'].put.requestBody.content['application/json'].schema.required).toEqual(['Node']);
  });
});
