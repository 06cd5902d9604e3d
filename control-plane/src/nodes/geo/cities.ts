import type { City } from '@vantage/shared-protocol';
import { PROVINCES } from './provinces.js';

/**
 * The fixed city dictionary of docs/api/nodes.md (`GET /v1/geo/cities`) that enrollment tokens' `city_id`
 * must come from (docs/api/nodes.md). Ids are stable: append new cities, never renumber.
 * Rows: [id, name, ISO 3166-2 province code].
 */
const ROWS: ReadonlyArray<readonly [number, string, string]> = [
  [1, 'Beijing', 'CN-BJ'], [2, 'Shanghai', 'CN-SH'], [3, 'Guangzhou', 'CN-GD'], [4, 'Shenzhen', 'CN-GD'],
  [5, 'Dongguan', 'CN-GD'], [6, 'Hangzhou', 'CN-ZJ'], [7, 'Ningbo', 'CN-ZJ'], [8, 'Nanjing', 'CN-JS'],
  [9, 'Suzhou', 'CN-JS'], [10, 'Chengdu', 'CN-SC'], [11, 'Chongqing', 'CN-CQ'], [12, 'Tianjin', 'CN-TJ'],
  [13, 'Wuhan', 'CN-HB'], [14, "Xi'an", 'CN-SN'], [15, 'Shenyang', 'CN-LN'], [16, 'Qingdao', 'CN-SD'],
  [17, 'Jinan', 'CN-SD'], [18, 'Zhengzhou', 'CN-HA'], [19, 'Changsha', 'CN-HN'], [20, 'Fuzhou', 'CN-FJ'],
  [21, 'Xiamen', 'CN-FJ'], [22, 'Kunming', 'CN-YN'], [23, 'Harbin', 'CN-HL'], [24, 'Hefei', 'CN-AH'],
  [25, 'Shijiazhuang', 'CN-HE'], [26, 'Nanning', 'CN-GX'],
  [101, 'New York', 'US-NY'], [102, 'Los Angeles', 'US-CA'], [103, 'San Francisco', 'US-CA'], [104, 'San Jose', 'US-CA'],
  [105, 'Chicago', 'US-IL'], [106, 'Dallas', 'US-TX'], [107, 'Houston', 'US-TX'], [108, 'Seattle', 'US-WA'],
  [109, 'Ashburn', 'US-VA'], [110, 'Miami', 'US-FL'], [111, 'Atlanta', 'US-GA'], [112, 'Denver', 'US-CO'],
  [113, 'Phoenix', 'US-AZ'],
  [201, 'Berlin', 'DE-BE'], [202, 'Frankfurt am Main', 'DE-HE'], [203, 'Munich', 'DE-BY'], [204, 'Hamburg', 'DE-HH'],
  [205, 'Düsseldorf', 'DE-NW'], [206, 'Nuremberg', 'DE-BY'],
  [301, 'Tokyo', 'JP-13'], [302, 'Osaka', 'JP-27'], [303, 'Nagoya', 'JP-23'], [304, 'Fukuoka', 'JP-40'], [305, 'Sapporo', 'JP-01'],
  [401, 'London', 'GB-ENG'], [402, 'Manchester', 'GB-ENG'], [403, 'Edinburgh', 'GB-SCT'], [404, 'Cardiff', 'GB-WLS'], [405, 'Belfast', 'GB-NIR'],
  [501, 'Singapore', 'SG-01'],
  [601, 'Paris', 'FR-IDF'], [602, 'Marseille', 'FR-PAC'], [603, 'Lyon', 'FR-ARA'], [604, 'Roubaix', 'FR-HDF'], [605, 'Strasbourg', 'FR-GES'],
  [701, 'São Paulo', 'BR-SP'], [702, 'Rio de Janeiro', 'BR-RJ'], [703, 'Fortaleza', 'BR-CE'],
  [801, 'Mumbai', 'IN-MH'], [802, 'Bengaluru', 'IN-KA'], [803, 'Chennai', 'IN-TN'], [804, 'New Delhi', 'IN-DL'], [805, 'Hyderabad', 'IN-TG'],
];

/** Every city of the dictionary, ordered by id. */
export const CITIES: readonly City[] = ROWS.map(([id, name, province]) => ({
  id,
  name,
  country: province.slice(0, 2),
  province,
  province_name: PROVINCES.get(province) ?? province,
}));

const BY_ID = new Map(CITIES.map((c) => [c.id, c]));

/** The city with `id`, or undefined. */
export function cityById(id: number): City | undefined {
  return BY_ID.get(id);
}

/**
 * Cities filtered by ISO country (`CN`) and/or ISO 3166-2 province (`CN-GD`), both upper case;
 * no filter = all (docs/api/nodes.md GET /v1/geo/cities?country=&province=).
 */
export function listCities(filter: { country?: string; province?: string } = {}): City[] {
  return CITIES.filter((c) => (!filter.country || c.country === filter.country) && (!filter.province || c.province === filter.province));
}
