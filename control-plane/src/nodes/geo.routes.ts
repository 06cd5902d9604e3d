import { createRoute } from '@hono/zod-openapi';
import { cityListQuerySchema, cityListSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { listCities } from './geo/cities.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';

const cities = createRoute({
  method: 'get', path: '/cities', tags: ['nodes'],
  summary: 'The fixed city dictionary enrollment tokens take city_id from; public',
  request: { query: cityListQuerySchema },
  responses: { 200: jsonOk(cityListSchema, '{items[]} of {id, name, country, province, province_name}'), 400: jsonError('VALIDATION_FAILED') },
});

/** `/v1/geo`: the city dictionary (public). */
export function geoRouter(_deps: AppDeps) {
  const r = createRouter();
  r.openapi(cities, (c) => {
    const { country, province } = c.req.valid('query');
    return ok(c, { items: listCities({ country, province }) }, 200);
  });
  return r;
}
