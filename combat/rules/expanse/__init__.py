"""The Expanse (AGE): initiative with the Drama Die, major and minor actions, stunts."""
