import { PageInfo } from '@em/core';
import { Directive, Field, Int, ObjectType } from 'type-graphql';

@ObjectType('PageInfo', { description: 'Pagination of a listing; an empty listing has currentPage 0.' })
@Directive('@shareable')
export class PageInfoType implements PageInfo {
  @Field(() => Int) total!: number;
  @Field(() => Int) currentPage!: number;
  @Field(() => Int) totalPages!: number;
  @Field() hasNextPage!: boolean;
  @Field() hasPreviousPage!: boolean;
  @Field(() => Int) pageSize!: number;
}
