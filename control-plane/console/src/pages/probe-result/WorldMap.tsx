import { useEffect, useMemo, useState } from 'preact/hooks';
import type { NodeResult } from '@vantage/shared-protocol';
import type { ExtendedFeature, GeoPermissibleObjects } from 'd3-geo';
import { LANG_TAGS, locale, t } from '../../i18n/i18n.js';

/** Nodes of one country in a probe: how many answered, how many succeeded. */
export interface CountryNodes { country: string; nodes: number; succeeded: number }

/** The probe's node results counted per country (ISO 3166-1 alpha-2, as node results carry it), most nodes first. */
export function nodesByCountry(rows: readonly NodeResult[]): CountryNodes[] {
  const by = new Map<string, CountryNodes>();
  for (const r of rows) {
    const country = r.node.country?.toUpperCase();
    if (!country) continue;
    const c = by.get(country) ?? { country, nodes: 0, succeeded: 0 };
    c.nodes += 1;
    if (r.success) c.succeeded += 1;
    by.set(country, c);
  }
  return [...by.values()].sort((a, b) => b.nodes - a.nodes || a.country.localeCompare(b.country));
}

/** A country's colour class: every node succeeded, some did, or none did. */
function stateOf(c: CountryNodes): 'up' | 'mixed' | 'down' {
  return c.succeeded === c.nodes ? 'up' : c.succeeded === 0 ? 'down' : 'mixed';
}

interface Shapes { paths: Array<{ numeric: string; d: string }>; sphere: string; alpha2ToNumeric: (alpha2: string) => string | undefined }

const WIDTH = 960;
const HEIGHT = 470;
let shapes: Promise<Shapes> | null = null;

/**
 * The world's countries as SVG paths, projected once per page load (Natural Earth 1:110m from the
 * world-atlas package, Equal Earth projection from d3-geo); loaded on first use as their own chunks,
 * so only a probe's page pays for them.
 */
function loadShapes(): Promise<Shapes> {
  shapes ??= (async () => {
    const [{ geoEqualEarth, geoPath }, { feature }, atlas, countries] = await Promise.all([
      import('d3-geo'), import('topojson-client'), import('world-atlas/countries-110m.json'), import('i18n-iso-countries'),
    ]);
    const topology = (atlas.default ?? atlas) as unknown as Parameters<typeof feature>[0];
    const collection = feature(topology, topology.objects.countries!) as unknown as { features: ExtendedFeature[] };
    const sphere: GeoPermissibleObjects = { type: 'Sphere' };
    const projection = geoEqualEarth().fitSize([WIDTH, HEIGHT], sphere);
    const path = geoPath(projection);
    return {
      paths: collection.features.map((f) => ({ numeric: String(f.id ?? ''), d: path(f) ?? '' })).filter((p) => p.d !== ''),
      sphere: path(sphere) ?? '',
      alpha2ToNumeric: (a) => (countries.default ?? countries).alpha2ToNumeric(a),
    };
  })();
  return shapes;
}

/**
 * A world map of the nodes a probe used: each country with nodes filled by how they did (all
 * succeeded, some, none), its name and counts in the shape's title; the image's own title says
 * the same for screen readers. Countries are named in the console's language (Intl.DisplayNames).
 */
export function WorldMap({ rows }: { rows: readonly NodeResult[] }) {
  const [loaded, setLoaded] = useState<Shapes | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => { loadShapes().then(setLoaded, () => setFailed(true)); }, []);
  const counts = useMemo(() => nodesByCountry(rows), [rows]);
  const names = useMemo(() => new Intl.DisplayNames([LANG_TAGS[locale()]], { type: 'region' }), [locale()]);
  const label = (c: CountryNodes) => t('probes.map.country', { country: names.of(c.country) ?? c.country, nodes: c.nodes, ok: c.succeeded });
  const summary = counts.length === 0 ? t('probes.map.none') : t('probes.map.summary', { list: counts.map(label).join('; ') });
  if (failed) return null; // the table below says everything the map does
  const byNumeric = new Map<string, CountryNodes>();
  if (loaded) for (const c of counts) { const n = loaded.alpha2ToNumeric(c.country); if (n) byNumeric.set(n, c); }
  return (
    <figure class="world-map">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="world-map-title" data-countries={counts.map((c) => c.country).join(' ')}>
        <title id="world-map-title">{summary}</title>
        {loaded && <path class="map-sphere" d={loaded.sphere} />}
        {loaded?.paths.map((p) => {
          const c = byNumeric.get(p.numeric);
          return c
            ? <path key={p.numeric} d={p.d} class={`map-country map-${stateOf(c)}`} data-country={c.country}><title>{label(c)}</title></path>
            : <path key={p.numeric} d={p.d} class="map-country" />;
        })}
      </svg>
      <figcaption>{summary}</figcaption>
    </figure>
  );
}
