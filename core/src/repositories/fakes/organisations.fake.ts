import { AppError } from '../../errors';
import type { OrganisationRecord, OrganisationsRepository } from '../organisations.repository';

export class InMemoryOrganisationsRepository implements OrganisationsRepository {
  readonly rows: OrganisationRecord[] = [];

  async create(input: { name: string; slug: string }) {
    if (this.rows.some((o) => o.slug === input.slug)) throw new AppError('CONFLICT', 'duplicate slug (unique index)');
    const row = { id: this.rows.length + 1, ...input, createdAt: new Date() };
    this.rows.push(row);
    return { ...row };
  }
  async findById(id: number) {
    const row = this.rows.find((o) => o.id === id);
    return row ? { ...row } : null;
  }
  async findBySlug(slug: string) {
    const row = this.rows.find((o) => o.slug === slug);
    return row ? { ...row } : null;
  }
  async list(ids: number[] | null) {
    return this.rows
      .filter((o) => !ids || ids.includes(o.id))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)
      .map((o) => ({ ...o }));
  }
  async rename(id: number, name: string) {
    const row = this.rows.find((o) => o.id === id);
    if (!row) return null;
    row.name = name;
    return { ...row };
  }
}
