import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app'
import { documentedRoutes, openApiDocument, PATH_PARAMS } from '../../src/http/openapi'
import * as responses from '../../src/schema/responses'

// The description is built from the app's own route table, so these checks hold the two together:
// a route added without a description, or a description of a route that is gone, fails here.
const app = buildApp()
const doc = openApiDocument(app.routes, responses)

// Everything but the web pages (the OAuth consent page, the documentation's pages and the
// single sign-on redirects among them) and the local stand-in for object storage.
const API_ROUTE =
  /^\/(v1|share|auth(?!\/oidc)|health|mcp|openapi\.json|llms\.txt|skill\.md|docs(?!\/)|\.well-known|oauth\/(token|register|device_authorization)|cli\/svc\.tgz)(\/|$)/

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    // The validator takes schemas on trust: each one must also be valid JSON Schema 2020-12.
    const ajv = new Ajv2020({ strict: false })
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true)
    }
  })

  it('describes every API route of the app with its method, and nothing else', () => {
    const routes = new Set(
      app.routes
        // A CORS preflight is no operation of the API.
        .filter((r) => !['ALL', 'OPTIONS'].includes(r.method) && API_ROUTE.test(r.path))
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')}`),
    )
    const described = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    )
    expect([...described].sort()).toEqual([...routes].sort())
    expect(routes.size).toBeGreaterThan(25)
  })

  it('names a schema for every path parameter and a body for every JSON write', () => {
    for (const route of documentedRoutes(app.routes)) {
      for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
        expect(PATH_PARAMS[name], `${route.path}: ${name}`).toBeDefined()
      }
    }
    const create = doc.paths['/v1/canvases'].post
    expect(Object.keys(create.requestBody!.content)).toEqual([
      'application/json',
      'multipart/form-data',
    ])
    // One file (`file_id` and `ext`) or a site (`items` and `main`): which is the domain's rule.
    const body = create.requestBody!.content['application/json'].schema as any
    expect(body).toMatchObject({ required: ['title'], additionalProperties: false })
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['file_id', 'ext', 'items', 'main']),
    )
    expect(create.responses['201'].content!['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Canvas',
    })
  })

  it('lists each route’s error codes under their status, with the one error envelope', () => {
    const get = doc.paths['/v1/canvases/{id}'].get
    expect(get.responses['404'].description).toBe('`canvas_not_found`')
    expect(get.responses['401'].description).toBe('`unauthorized`')
    expect(get.responses['403'].description).toBe('`forbidden`')
    expect(get.responses['429'].description).toBe('`rate_limited`')
    expect(get.responses['404'].content!['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    })
    expect(get.security).toEqual([{ apiKey: [] }])
    expect(doc.paths['/share/{token}'].get.security).toEqual([])
    const list = doc.paths['/v1/canvases'].get
    expect(list.parameters!.map((p) => p.name)).toEqual([
      'visibility',
      'ext',
      'author',
      'limit',
      'offset',
      'cursor',
    ])
    expect(list.responses['400'].description).toBe('`invalid_request`')
    const create = doc.paths['/v1/canvases'].post
    expect(create.parameters!.map((p) => p.name)).toEqual(['Idempotency-Key'])
    expect(create.responses['409'].description).toBe('`idempotency_in_progress`')
    expect(create.responses['422'].description).toBe('`idempotency_key_reused`')
    expect(list.responses['422']).toBeUndefined()
  })
})
