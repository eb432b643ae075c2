import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useId, useState } from 'preact/hooks';
import { type Brand, client, type Problem, problemOf } from './api.js';
import { setZone, zoneName } from './when.js';

/**
 * The brand the person is working on. Most pages (calendar, ideas, memory, media…) are per
 * brand; the choice is kept in this browser (localStorage) and offered in the header when the
 * workspace has more than one brand.
 */
interface BrandState {
  brands: Brand[] | null;
  brand: Brand | null;
  problem: Problem | null;
  choose(id: string): void;
  reload(): Promise<void>;
}

const BrandContext = createContext<BrandState>({
  brands: null,
  brand: null,
  problem: null,
  choose: () => undefined,
  reload: async () => undefined,
});

const KEY = 'svc.brand';

export function BrandProvider({ children }: { children: ComponentChildren }) {
  const [brands, setBrands] = useState<Brand[] | null>(null);
  const [chosen, setChosen] = useState<string | null>(() => localStorage.getItem(KEY));
  const [problem, setProblem] = useState<Problem | null>(null);
  const reload = async () => {
    try {
      const all: Brand[] = [];
      for await (const b of client.brands.list({ limit: 100 })) all.push(b);
      setBrands(all);
      setProblem(null);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  useEffect(() => {
    reload();
  }, []);
  const brand = brands?.find((b) => b.id === chosen) ?? brands?.[0] ?? null;
  // Before the pages render, so every time they show is in this brand's zone.
  setZone(brand?.time_zone);
  const choose = (id: string) => {
    localStorage.setItem(KEY, id);
    setChosen(id);
  };
  return (
    <BrandContext.Provider value={{ brands, brand, problem, choose, reload }}>
      {children}
    </BrandContext.Provider>
  );
}

/** The current brand (null while loading or when there is none yet), and the list. */
export const useBrand = () => useContext(BrandContext);

/**
 * The time zone a brand's times are shown and picked in; null until the brands are loaded, so a
 * time field is never filled in the wrong zone. A page about one brand's thing (a post, a draft,
 * an approval) uses that brand's zone, which need not be the current brand's.
 */
export function useZoneOf(brandId: string): string | null {
  const { brands } = useBrand();
  if (!brands) return null;
  return brands.find((b) => b.id === brandId)?.time_zone ?? zoneName();
}

/** The header's brand switcher; hidden when there is only one brand. */
export function BrandPicker() {
  const { brands, brand, choose } = useBrand();
  const id = useId();
  if (!brands || brands.length < 2 || !brand) return null;
  return (
    <span class="brand-picker">
      <label for={id}>Brand</label>
      <select id={id} value={brand.id} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
        {brands.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
    </span>
  );
}
