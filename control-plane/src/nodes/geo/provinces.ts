/**
 * ISO 3166-2 subdivision codes and English names of the countries the city dictionary covers
 * (ISO 3166-2 as of 2024; CN uses the 2017 letter codes, IN the 2023 IN-TG). This is the
 * `declared_province` whitelist of docs/api/nodes.md: a province outside it is refused.
 */
const RAW: Record<string, string> = {
  CN: 'AH:Anhui|BJ:Beijing|CQ:Chongqing|FJ:Fujian|GD:Guangdong|GS:Gansu|GX:Guangxi|GZ:Guizhou|HA:Henan|HB:Hubei|HE:Hebei|HI:Hainan|HK:Hong Kong|HL:Heilongjiang|HN:Hunan|JL:Jilin|JS:Jiangsu|JX:Jiangxi|LN:Liaoning|MO:Macao|NM:Inner Mongolia|NX:Ningxia|QH:Qinghai|SC:Sichuan|SD:Shandong|SH:Shanghai|SN:Shaanxi|SX:Shanxi|TJ:Tianjin|TW:Taiwan|XJ:Xinjiang|XZ:Tibet|YN:Yunnan|ZJ:Zhejiang',
  US: 'AK:Alaska|AL:Alabama|AR:Arkansas|AZ:Arizona|CA:California|CO:Colorado|CT:Connecticut|DC:District of Columbia|DE:Delaware|FL:Florida|GA:Georgia|HI:Hawaii|IA:Iowa|ID:Idaho|IL:Illinois|IN:Indiana|KS:Kansas|KY:Kentucky|LA:Louisiana|MA:Massachusetts|MD:Maryland|ME:Maine|MI:Michigan|MN:Minnesota|MO:Missouri|MS:Mississippi|MT:Montana|NC:North Carolina|ND:North Dakota|NE:Nebraska|NH:New Hampshire|NJ:New Jersey|NM:New Mexico|NV:Nevada|NY:New York|OH:Ohio|OK:Oklahoma|OR:Oregon|PA:Pennsylvania|RI:Rhode Island|SC:South Carolina|SD:South Dakota|TN:Tennessee|TX:Texas|UT:Utah|VA:Virginia|VT:Vermont|WA:Washington|WI:Wisconsin|WV:West Virginia|WY:Wyoming',
  DE: 'BB:Brandenburg|BE:Berlin|BW:Baden-Württemberg|BY:Bavaria|HB:Bremen|HE:Hesse|HH:Hamburg|MV:Mecklenburg-Vorpommern|NI:Lower Saxony|NW:North Rhine-Westphalia|RP:Rhineland-Palatinate|SH:Schleswig-Holstein|SL:Saarland|SN:Saxony|ST:Saxony-Anhalt|TH:Thuringia',
  JP: '01:Hokkaido|02:Aomori|03:Iwate|04:Miyagi|05:Akita|06:Yamagata|07:Fukushima|08:Ibaraki|09:Tochigi|10:Gunma|11:Saitama|12:Chiba|13:Tokyo|14:Kanagawa|15:Niigata|16:Toyama|17:Ishikawa|18:Fukui|19:Yamanashi|20:Nagano|21:Gifu|22:Shizuoka|23:Aichi|24:Mie|25:Shiga|26:Kyoto|27:Osaka|28:Hyogo|29:Nara|30:Wakayama|31:Tottori|32:Shimane|33:Okayama|34:Hiroshima|35:Yamaguchi|36:Tokushima|37:Kagawa|38:Ehime|39:Kochi|40:Fukuoka|41:Saga|42:Nagasaki|43:Kumamoto|44:Oita|45:Miyazaki|46:Kagoshima|47:Okinawa',
  GB: 'ENG:England|NIR:Northern Ireland|SCT:Scotland|WLS:Wales',
  SG: '01:Central Singapore|02:North East|03:North West|04:South East|05:South West',
  FR: 'ARA:Auvergne-Rhône-Alpes|BFC:Bourgogne-Franche-Comté|BRE:Brittany|COR:Corsica|CVL:Centre-Val de Loire|GES:Grand Est|HDF:Hauts-de-France|IDF:Île-de-France|NAQ:Nouvelle-Aquitaine|NOR:Normandy|OCC:Occitanie|PAC:Provence-Alpes-Côte d’Azur|PDL:Pays de la Loire',
  BR: 'AC:Acre|AL:Alagoas|AM:Amazonas|AP:Amapá|BA:Bahia|CE:Ceará|DF:Distrito Federal|ES:Espírito Santo|GO:Goiás|MA:Maranhão|MG:Minas Gerais|MS:Mato Grosso do Sul|MT:Mato Grosso|PA:Pará|PB:Paraíba|PE:Pernambuco|PI:Piauí|PR:Paraná|RJ:Rio de Janeiro|RN:Rio Grande do Norte|RO:Rondônia|RR:Roraima|RS:Rio Grande do Sul|SC:Santa Catarina|SE:Sergipe|SP:São Paulo|TO:Tocantins',
  IN: 'AN:Andaman and Nicobar Islands|AP:Andhra Pradesh|AR:Arunachal Pradesh|AS:Assam|BR:Bihar|CG:Chhattisgarh|CH:Chandigarh|DH:Dadra and Nagar Haveli and Daman and Diu|DL:Delhi|GA:Goa|GJ:Gujarat|HP:Himachal Pradesh|HR:Haryana|JH:Jharkhand|JK:Jammu and Kashmir|KA:Karnataka|KL:Kerala|LA:Ladakh|LD:Lakshadweep|MH:Maharashtra|ML:Meghalaya|MN:Manipur|MP:Madhya Pradesh|MZ:Mizoram|NL:Nagaland|OD:Odisha|PB:Punjab|PY:Puducherry|RJ:Rajasthan|SK:Sikkim|TG:Telangana|TN:Tamil Nadu|TR:Tripura|UK:Uttarakhand|UP:Uttar Pradesh|WB:West Bengal',
};

/** Province code (e.g. `CN-BJ`) → English name, for every whitelisted subdivision. */
export const PROVINCES: ReadonlyMap<string, string> = new Map(
  Object.entries(RAW).flatMap(([country, list]) =>
    list.split('|').map((entry) => {
      const [code, name] = entry.split(':') as [string, string];
      return [`${country}-${code}`, name] as const;
    })),
);

/** True when `code` (already upper-cased) is a whitelisted ISO 3166-2 code (docs/api/nodes.md). */
export function isKnownProvince(code: string): boolean {
  return PROVINCES.has(code);
}
