import { SubgraphContext } from '@em/subgraph-kit';
import { Ctx, Query, Resolver } from 'type-graphql';
import { AccountType } from './account.types';
import { AccountService } from './account.service';

@Resolver()
export class AccountResolver {
  constructor(private readonly service: AccountService) {}

  @Query(() => AccountType, { description: 'The account of the OAuth token (scope events:read).' })
  account(@Ctx() ctx: SubgraphContext) {
    return this.service.current(ctx.principal);
  }
}
