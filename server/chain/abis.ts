export {
  benchSpammerAbi,
  bondingCurveAbi,
  devSwapRouterAbi,
  graduatorAbi,
  launchFactoryAbi,
  launchTokenAbi,
  uniswapV3FactoryAbi,
  uniswapV3PoolAbi,
  wrappedStableAbi,
} from '../../contracts/generated/abis.generated';
