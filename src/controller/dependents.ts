/**
 * Which charts name which in their depends-on annotations, kept as the informer sees charts come and go, so a
 * change to one chart (its status, its annotations, its deletion) re-decides exactly the charts that wait on it.
 */
export class Dependents {
  /** chart key → the keys it depends on. */
  private readonly dependencies = new Map<string, readonly string[]>();
  /** chart key → the keys that depend on it directly. */
  private readonly dependents = new Map<string, Set<string>>();

  /** Records what `key` depends on now (an empty list forgets it). */
  set(key: string, dependsOn: readonly string[]): void {
    for (const old of this.dependencies.get(key) ?? []) {
      const set = this.dependents.get(old);
      set?.delete(key);
      if (set?.size === 0) this.dependents.delete(old);
    }
    if (dependsOn.length === 0) {
      this.dependencies.delete(key);
      return;
    }
    this.dependencies.set(key, dependsOn);
    for (const dependency of dependsOn) {
      const set = this.dependents.get(dependency) ?? new Set<string>();
      set.add(key);
      this.dependents.set(dependency, set);
    }
  }

  /**
   * Every chart that depends on `key`, directly or through others: a chart's annotations can open or close a
   * cycle that charts further along it must hear of.
   */
  of(key: string): string[] {
    const found = new Set<string>();
    const next = [key];
    for (let current = next.pop(); current !== undefined; current = next.pop()) {
      for (const dependent of this.dependents.get(current) ?? []) {
        if (found.has(dependent) || dependent === key) continue;
        found.add(dependent);
        next.push(dependent);
      }
    }
    return [...found];
  }
}
