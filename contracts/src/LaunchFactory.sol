// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {BondingCurve, IGraduator} from "./BondingCurve.sol";
import {ILaunchFactory} from "./ILaunchFactory.sol";
import {LaunchToken} from "./LaunchToken.sol";

/// @title LaunchFactory
/// @notice Launches tokens on bonding curves and emits every launchpad event (launches, curve
/// trades, graduations), so an indexer follows the whole launchpad at one address.
contract LaunchFactory is ILaunchFactory, Ownable {
    uint256 private constant BPS = 10_000;
    uint256 public constant MIN_SUPPLY = 1_000e18;
    uint256 public constant MAX_SUPPLY = 1e15 * 1e18;

    /// @notice Virtual token reserve at launch, in basis points of the supply (pump.fun: 10730).
    uint16 public immutable virtualTokenBps;
    /// @notice Share of the supply sold on the curve, in basis points (pump.fun: 7931).
    uint16 public immutable curveSupplyBps;
    uint256 public immutable initialVirtualReserve;
    uint256 public immutable graduationThreshold;
    uint16 public immutable protocolFeeBps;
    uint16 public immutable creatorFeeBps;

    address public override protocolFeeRecipient;
    IGraduator public graduator;
    mapping(address curve => bool) public override isCurve;
    mapping(address token => address curve) public curveOf;
    uint256 public launchCount;

    event TokenLaunched(
        address indexed token,
        address indexed creator,
        address curve,
        string name,
        string symbol,
        uint256 totalSupply,
        bytes32 metadataHash,
        uint256 virtualTokenReserve,
        uint256 virtualReserve,
        uint256 realTokenReserve,
        uint256 graduationThreshold,
        uint16 protocolFeeBps,
        uint16 creatorFeeBps
    );

    /// @notice A curve trade. reserveAmount == curveValue + protocolFee + creatorFee. Buy:
    /// reserveAmount is what the trader paid and curveValue what entered the curve. Sell:
    /// reserveAmount is what left the curve and curveValue what the trader received.
    /// The four reserves are the curve's state after the trade.
    event Trade(
        address indexed token,
        address indexed trader,
        bool isBuy,
        uint256 tokenAmount,
        uint256 reserveAmount,
        uint256 curveValue,
        uint256 protocolFee,
        uint256 creatorFee,
        uint256 virtualTokenReserve,
        uint256 virtualReserve,
        uint256 realTokenReserve,
        uint256 realReserve
    );

    /// @notice The curve filled and its market opened. tokenAmount and stableAmount (6 decimals)
    /// went into the pool; reserveAmount is stableAmount in 18-decimal native units.
    event Graduated(
        address indexed token,
        address indexed pool,
        uint256 tokenAmount,
        uint256 reserveAmount,
        uint256 stableAmount,
        uint256 burnedTokenAmount,
        uint128 liquidity,
        uint160 sqrtPriceX96
    );

    error InvalidName();
    error InvalidSymbol();
    error InvalidSupply();
    error InvalidParameters();
    error OnlyCurve();
    error GraduatorAlreadySet();
    error GraduatorNotSet();

    struct Parameters {
        uint16 virtualTokenBps;
        uint16 curveSupplyBps;
        uint256 initialVirtualReserve;
        uint256 graduationThreshold;
        uint16 protocolFeeBps;
        uint16 creatorFeeBps;
        address protocolFeeRecipient;
    }

    constructor(Parameters memory p) Ownable(msg.sender) {
        // The threshold must be reachable before the curve runs out of tokens to sell:
        // selling all curve supply raises the real reserve to V0 * sale / (virtual - sale).
        if (
            p.curveSupplyBps == 0 || p.virtualTokenBps <= p.curveSupplyBps || p.curveSupplyBps > BPS
                || p.initialVirtualReserve == 0 || p.graduationThreshold == 0
                || p.graduationThreshold * (p.virtualTokenBps - p.curveSupplyBps) >= p.initialVirtualReserve * p.curveSupplyBps
                || uint256(p.protocolFeeBps) + p.creatorFeeBps >= 1_000
        ) revert InvalidParameters();
        virtualTokenBps = p.virtualTokenBps;
        curveSupplyBps = p.curveSupplyBps;
        initialVirtualReserve = p.initialVirtualReserve;
        graduationThreshold = p.graduationThreshold;
        protocolFeeBps = p.protocolFeeBps;
        creatorFeeBps = p.creatorFeeBps;
        protocolFeeRecipient = p.protocolFeeRecipient;
    }

    /// @notice One-time wiring: the graduator is deployed after the factory it trusts.
    function setGraduator(IGraduator graduator_) external onlyOwner {
        if (address(graduator) != address(0)) revert GraduatorAlreadySet();
        graduator = graduator_;
    }

    /// @notice Launches `name` (<= 64 bytes) / `symbol` (<= 16 bytes) with `initialSupply` base
    /// units, all held by a new curve. Any value sent is the creator's first buy.
    /// @param metadataHash keccak256 of the metadata draft this launch means (see finalize).
    function launch(string calldata name, string calldata symbol, uint256 initialSupply, bytes32 metadataHash)
        external
        payable
        returns (address token, address curve)
    {
        if (address(graduator) == address(0)) revert GraduatorNotSet();
        if (bytes(name).length == 0 || bytes(name).length > 64) revert InvalidName();
        if (bytes(symbol).length == 0 || bytes(symbol).length > 16) revert InvalidSymbol();
        if (initialSupply < MIN_SUPPLY || initialSupply > MAX_SUPPLY) revert InvalidSupply();

        BondingCurve.Params memory params = BondingCurve.Params({
            creator: msg.sender,
            virtualTokenReserve: (initialSupply * virtualTokenBps) / BPS,
            virtualReserve: initialVirtualReserve,
            realTokenReserve: (initialSupply * curveSupplyBps) / BPS,
            graduationThreshold: graduationThreshold,
            protocolFeeBps: protocolFeeBps,
            creatorFeeBps: creatorFeeBps
        });
        BondingCurve newCurve = new BondingCurve(params, graduator);
        curve = address(newCurve);
        token = address(new LaunchToken(name, symbol, initialSupply, curve));
        newCurve.initialize(IERC20(token));
        isCurve[curve] = true;
        curveOf[token] = curve;
        launchCount++;

        emit TokenLaunched(
            token,
            msg.sender,
            curve,
            name,
            symbol,
            initialSupply,
            metadataHash,
            params.virtualTokenReserve,
            params.virtualReserve,
            params.realTokenReserve,
            params.graduationThreshold,
            params.protocolFeeBps,
            params.creatorFeeBps
        );

        if (msg.value > 0) newCurve.buyFor{value: msg.value}(msg.sender, 0, block.timestamp);
    }

    function recordTrade(TradeRecord calldata r) external override {
        if (!isCurve[msg.sender] || curveOf[r.token] != msg.sender) revert OnlyCurve();
        emit Trade(
            r.token,
            r.trader,
            r.isBuy,
            r.tokenAmount,
            r.reserveAmount,
            r.curveValue,
            r.protocolFee,
            r.creatorFee,
            r.virtualTokenReserve,
            r.virtualReserve,
            r.realTokenReserve,
            r.realReserve
        );
    }

    function recordGraduation(GraduationRecord calldata r) external override {
        if (!isCurve[msg.sender] || curveOf[r.token] != msg.sender) revert OnlyCurve();
        emit Graduated(
            r.token, r.pool, r.tokenAmount, r.reserveAmount, r.stableAmount, r.burnedTokenAmount, r.liquidity, r.sqrtPriceX96
        );
    }

    function setProtocolFeeRecipient(address recipient) external onlyOwner {
        protocolFeeRecipient = recipient;
    }
}
