// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ILaunchFactory} from "./ILaunchFactory.sol";

interface IGraduator {
    function graduate(address token, uint256 virtualTokenReserve, uint256 virtualReserve)
        external
        payable
        returns (ILaunchFactory.GraduationRecord memory record);
}

/// @title BondingCurve
/// @notice Sells one LaunchToken for native value along a constant-product curve over virtual
/// reserves (pump.fun style). When the real reserve reaches the graduation threshold, the curve
/// hands its reserve and remaining tokens to the graduator, which opens a Uniswap V3 market.
/// @dev Invariants: virtualReserve - realReserve == initial virtual reserve; every trade has
/// reserveAmount == curveValue + protocolFee + creatorFee; rounding always favours the curve.
contract BondingCurve is ReentrancyGuard {
    uint256 private constant BPS = 10_000;

    ILaunchFactory public immutable factory;
    IGraduator public immutable graduator;
    address public immutable creator;
    uint256 public immutable graduationThreshold;
    uint16 public immutable protocolFeeBps;
    uint16 public immutable creatorFeeBps;

    IERC20 public token;
    uint256 public virtualTokenReserve;
    uint256 public virtualReserve;
    uint256 public realTokenReserve;
    uint256 public realReserve;
    bool public graduated;
    uint256 public protocolFeesAccrued;
    uint256 public creatorFeesAccrued;

    error OnlyFactory();
    error AlreadyInitialized();
    error AlreadyGraduated();
    error Expired();
    error ZeroAmount();
    error Slippage(uint256 amountOut, uint256 minimum);
    error InsufficientLiquidity();
    error NativeTransferFailed();
    error NotCreator();

    struct Params {
        address creator;
        uint256 virtualTokenReserve;
        uint256 virtualReserve;
        uint256 realTokenReserve;
        uint256 graduationThreshold;
        uint16 protocolFeeBps;
        uint16 creatorFeeBps;
    }

    constructor(Params memory params, IGraduator graduator_) {
        factory = ILaunchFactory(msg.sender);
        graduator = graduator_;
        creator = params.creator;
        virtualTokenReserve = params.virtualTokenReserve;
        virtualReserve = params.virtualReserve;
        realTokenReserve = params.realTokenReserve;
        graduationThreshold = params.graduationThreshold;
        protocolFeeBps = params.protocolFeeBps;
        creatorFeeBps = params.creatorFeeBps;
    }

    /// @notice Called once by the factory right after it deploys the token.
    function initialize(IERC20 token_) external {
        if (msg.sender != address(factory)) revert OnlyFactory();
        if (address(token) != address(0)) revert AlreadyInitialized();
        token = token_;
    }

    /// @notice Buys tokens with all of msg.value (less any part above the graduation threshold,
    /// which is refunded).
    function buy(uint256 minTokensOut, uint256 deadline) external payable nonReentrant returns (uint256) {
        return _buy(msg.sender, minTokensOut, deadline);
    }

    /// @notice The launch transaction's optional first buy, made on the creator's behalf.
    function buyFor(address trader, uint256 minTokensOut, uint256 deadline)
        external
        payable
        nonReentrant
        returns (uint256)
    {
        if (msg.sender != address(factory)) revert OnlyFactory();
        return _buy(trader, minTokensOut, deadline);
    }

    /// @notice Tokens a buy of `gross` native value would receive now (ignoring the threshold cap).
    function quoteBuy(uint256 gross) external view returns (uint256 tokensOut) {
        uint256 curveValue = gross - (gross * protocolFeeBps) / BPS - (gross * creatorFeeBps) / BPS;
        tokensOut = virtualTokenReserve - Math.ceilDiv(virtualTokenReserve * virtualReserve, virtualReserve + curveValue);
    }

    /// @notice Native value a sale of `tokenAmount` would pay out now, after fees.
    function quoteSell(uint256 tokenAmount) external view returns (uint256 netOut) {
        uint256 gross = virtualReserve - Math.ceilDiv(virtualTokenReserve * virtualReserve, virtualTokenReserve + tokenAmount);
        netOut = gross - (gross * protocolFeeBps) / BPS - (gross * creatorFeeBps) / BPS;
    }

    function _buy(address trader, uint256 minTokensOut, uint256 deadline) private returns (uint256 tokensOut) {
        if (graduated) revert AlreadyGraduated();
        if (block.timestamp > deadline) revert Expired();
        if (msg.value == 0) revert ZeroAmount();

        uint256 gross = msg.value;
        uint256 protocolFee = (gross * protocolFeeBps) / BPS;
        uint256 creatorFee = (gross * creatorFeeBps) / BPS;
        uint256 curveValue = gross - protocolFee - creatorFee;
        uint256 room = graduationThreshold - realReserve;
        if (curveValue > room) {
            // Fill exactly to the threshold; the smallest gross that covers it, fees take the rest.
            curveValue = room;
            gross = Math.min(Math.ceilDiv(room * BPS, BPS - protocolFeeBps - creatorFeeBps), msg.value);
            protocolFee = (gross * protocolFeeBps) / BPS;
            creatorFee = gross - room - protocolFee;
        }

        uint256 newVirtualTokenReserve = Math.ceilDiv(virtualTokenReserve * virtualReserve, virtualReserve + curveValue);
        tokensOut = virtualTokenReserve - newVirtualTokenReserve;
        if (tokensOut == 0) revert ZeroAmount();
        if (tokensOut > realTokenReserve) revert InsufficientLiquidity();
        if (tokensOut < minTokensOut) revert Slippage(tokensOut, minTokensOut);

        virtualTokenReserve = newVirtualTokenReserve;
        virtualReserve += curveValue;
        realTokenReserve -= tokensOut;
        realReserve += curveValue;
        protocolFeesAccrued += protocolFee;
        creatorFeesAccrued += creatorFee;

        token.transfer(trader, tokensOut);
        factory.recordTrade(
            ILaunchFactory.TradeRecord({
                token: address(token),
                trader: trader,
                isBuy: true,
                tokenAmount: tokensOut,
                reserveAmount: gross,
                curveValue: curveValue,
                protocolFee: protocolFee,
                creatorFee: creatorFee,
                virtualTokenReserve: virtualTokenReserve,
                virtualReserve: virtualReserve,
                realTokenReserve: realTokenReserve,
                realReserve: realReserve
            })
        );

        if (realReserve == graduationThreshold) _graduate();

        uint256 refund = msg.value - gross;
        if (refund > 0) _sendNative(msg.sender == address(factory) ? trader : msg.sender, refund);
    }

    /// @notice Sells `tokenAmount` back to the curve for native value (no approval needed).
    function sell(uint256 tokenAmount, uint256 minReserveOut, uint256 deadline)
        external
        nonReentrant
        returns (uint256 netOut)
    {
        if (graduated) revert AlreadyGraduated();
        if (block.timestamp > deadline) revert Expired();
        if (tokenAmount == 0) revert ZeroAmount();

        uint256 newVirtualReserve = Math.ceilDiv(virtualTokenReserve * virtualReserve, virtualTokenReserve + tokenAmount);
        uint256 gross = virtualReserve - newVirtualReserve;
        if (gross > realReserve) revert InsufficientLiquidity();
        uint256 protocolFee = (gross * protocolFeeBps) / BPS;
        uint256 creatorFee = (gross * creatorFeeBps) / BPS;
        netOut = gross - protocolFee - creatorFee;
        if (netOut == 0) revert ZeroAmount();
        if (netOut < minReserveOut) revert Slippage(netOut, minReserveOut);

        virtualTokenReserve += tokenAmount;
        virtualReserve = newVirtualReserve;
        realTokenReserve += tokenAmount;
        realReserve -= gross;
        protocolFeesAccrued += protocolFee;
        creatorFeesAccrued += creatorFee;

        token.transferFrom(msg.sender, address(this), tokenAmount);
        factory.recordTrade(
            ILaunchFactory.TradeRecord({
                token: address(token),
                trader: msg.sender,
                isBuy: false,
                tokenAmount: tokenAmount,
                reserveAmount: gross,
                curveValue: netOut,
                protocolFee: protocolFee,
                creatorFee: creatorFee,
                virtualTokenReserve: virtualTokenReserve,
                virtualReserve: virtualReserve,
                realTokenReserve: realTokenReserve,
                realReserve: realReserve
            })
        );
        _sendNative(msg.sender, netOut);
    }

    /// @notice Pays accrued creator fees to the creator (pull, so a reverting creator cannot block trades).
    function claimCreatorFees() external nonReentrant {
        if (msg.sender != creator) revert NotCreator();
        uint256 amount = creatorFeesAccrued;
        creatorFeesAccrued = 0;
        _sendNative(creator, amount);
    }

    /// @notice Pays accrued protocol fees to the factory's fee recipient.
    function claimProtocolFees() external nonReentrant {
        uint256 amount = protocolFeesAccrued;
        protocolFeesAccrued = 0;
        _sendNative(factory.protocolFeeRecipient(), amount);
    }

    function _graduate() private {
        graduated = true;
        uint256 reserve = realReserve;
        uint256 tokens = token.balanceOf(address(this));
        realReserve = 0;
        realTokenReserve = 0;
        token.transfer(address(graduator), tokens);
        ILaunchFactory.GraduationRecord memory record =
            graduator.graduate{value: reserve}(address(token), virtualTokenReserve, virtualReserve);
        factory.recordGraduation(record);
    }

    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed();
    }
}
