import { ContainerType, ResolverData } from 'type-graphql';

/** type-graphql's container over resolver instances built by the service's entry point. */
export function resolverContainer(...instances: object[]): ContainerType {
  const byClass = new Map<unknown, object>(instances.map((i) => [i.constructor, i]));
  return {
    get(someClass: { name: string }, _data: ResolverData) {
      const found = byClass.get(someClass);
      if (!found) throw new Error(`No instance registered for resolver ${someClass.name}`);
      return found;
    },
  };
}
