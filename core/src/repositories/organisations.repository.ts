import { EntityManager } from '@mikro-orm/core';
import { Organisation } from '../db/entities';
import { RepositorySource, repositoryHandle } from './repository-source';

export interface OrganisationRecord {
  id: number;
  name: string;
  slug: string;
  createdAt: Date;
}

/** Every query of `organisations`. */
export interface OrganisationsRepository {
  create(input: { name: string; slug: string }): Promise<OrganisationRecord>;
  findById(id: number): Promise<OrganisationRecord | null>;
  findBySlug(slug: string): Promise<OrganisationRecord | null>;
  /** By name, then id; `ids` null = every organisation. */
  list(ids: number[] | null): Promise<OrganisationRecord[]>;
  rename(id: number, name: string): Promise<OrganisationRecord | null>;
}

const record = (o: Organisation): OrganisationRecord => ({
  id: o.id,
  name: o.name,
  slug: o.slug,
  createdAt: o.createdAt,
});

export class SqlOrganisationsRepository implements OrganisationsRepository {
  private readonly em: () => EntityManager;

  constructor(source: RepositorySource) {
    this.em = repositoryHandle(source).em;
  }

  async create(input: { name: string; slug: string }): Promise<OrganisationRecord> {
    const em = this.em();
    const organisation = em.create(Organisation, input);
    await em.flush();
    return record(organisation);
  }

  async findById(id: number): Promise<OrganisationRecord | null> {
    const found = await this.em().findOne(Organisation, { id });
    return found && record(found);
  }

  async findBySlug(slug: string): Promise<OrganisationRecord | null> {
    const found = await this.em().findOne(Organisation, { slug });
    return found && record(found);
  }

  async list(ids: number[] | null): Promise<OrganisationRecord[]> {
    if (ids && ids.length === 0) return [];
    const found = await this.em().find(Organisation, ids ? { id: { $in: ids } } : {}, {
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
    return found.map(record);
  }

  async rename(id: number, name: string): Promise<OrganisationRecord | null> {
    const em = this.em();
    const found = await em.findOne(Organisation, { id });
    if (!found) return null;
    found.name = name;
    await em.flush();
    return record(found);
  }
}
