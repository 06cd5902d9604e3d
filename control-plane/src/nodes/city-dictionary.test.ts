import t from 'tap';
import { CITIES, listCities } from './geo/cities.js';
import { checkDeclaredLocation } from './enrollment-tokens.routes.js';

/*
 * GET /v1/geo/cities serves the one dictionary enrollment tokens' city_id is checked against
 * (docs/api/nodes.md "City dictionary"): every city it lists is accepted with its own country and
 * province and refused with any other; the country and province filters partition it.
 */

t.test('every listed city is accepted with its own country and province, refused elsewhere', async (t) => {
  const all = listCities({});
  t.same(all, CITIES, 'the endpoint lists the dictionary itself');
  for (const city of all) {
    t.same(checkDeclaredLocation({ country_code: city.country, declared_province: city.province, city_id: city.id } as never),
      { country_code: city.country, declared_province: city.province, city_id: city.id });
    t.same(checkDeclaredLocation({ city_id: city.id } as never), { country_code: city.country, declared_province: city.province, city_id: city.id }, 'country and province filled from the city');
    const elsewhere = all.find((c) => c.province !== city.province)!;
    t.throws(() => checkDeclaredLocation({ declared_province: elsewhere.province, city_id: city.id } as never), { code: 'VALIDATION_FAILED' });
  }
  t.throws(() => checkDeclaredLocation({ city_id: 99_999 } as never), { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'city_id' }] } });
});

t.test('the country and province filters partition the dictionary', async (t) => {
  const all = listCities({});
  const countries = [...new Set(all.map((c) => c.country))];
  t.equal(countries.reduce((n, country) => n + listCities({ country }).length, 0), all.length);
  for (const country of countries) t.ok(listCities({ country }).every((c) => c.country === country), country);
  const provinces = [...new Set(all.map((c) => c.province))];
  t.equal(provinces.reduce((n, province) => n + listCities({ province }).length, 0), all.length);
  t.same(listCities({ country: 'US', province: 'CN-GD' }), [], 'a province outside the country matches nothing');
});
