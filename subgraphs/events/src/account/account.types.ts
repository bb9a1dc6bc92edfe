import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('AccountOrganisation')
export class AccountOrganisationType {
  @Field(() => Int) orgId!: number;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) slug!: string | null;
  @Field({ description: 'admin or user.' }) role!: string;
}

@ObjectType('Account')
export class AccountType {
  @Field(() => String, { nullable: true, description: 'The e-mail of the signed-in account.' }) accountLabel!:
    string | null;
  @Field(() => [String], { description: 'Scopes of the token, sorted.' }) scopes!: string[];
  @Field(() => [AccountOrganisationType], { description: 'Sorted by name; pending invitations excluded.' })
  organisations!: AccountOrganisationType[];
}
